import PhotonCore

// MAC text in any spelling: what normalises is 6 ASCII hex pairs and makes a packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    _ = MACAddress.looksLikeAttempt(text)
    if let mac = MACAddress.normalized(text) {
        precondition(mac.utf8.count == 17, "a normalised MAC of the wrong length")
        precondition(MACAddress.normalized(mac) == mac, "normalising is not idempotent")
        _ = try? WakeOnLAN.magicPacket(mac: try WakeOnLAN.parseMAC(mac))
    }
    return 0
}
