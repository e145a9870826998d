import AndroidTV
import PhotonCore

// The TV's certificate subject (CN and the whole subject line), which names the TV and
// its MAC: any MAC taken from it must be a well-formed ASCII MAC.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let commonName = String(decoding: bytes[..<split], as: UTF8.self)
    let subject = String(decoding: bytes[min(split + 1, bytes.count)...], as: UTF8.self)
    let parsed = AndroidTVCertificateSubject.parse(commonName: commonName, subject: subject)
    if let mac = parsed.mac {
        precondition(MACAddress.bytes(mac) != nil && mac.utf8.count == 17, "an invalid MAC passed: \(mac)")
        _ = try? WakeOnLAN.magicPacket(mac: try WakeOnLAN.parseMAC(mac))
    }
    return 0
}
