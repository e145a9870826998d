import PhotonCore
import SamsungTV

// `GET /api/v2/` bodies: device information, and the MAC taken from `wifiMac`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let info = try? SamsungDeviceInfo.parse(bytes) else { return 0 }
    if let mac = info.wifiMac {
        precondition(MACAddress.bytes(mac) != nil, "an invalid MAC passed: \(mac)")
        _ = try? WakeOnLAN.magicPacket(mac: try WakeOnLAN.parseMAC(mac))
    }
    return 0
}
