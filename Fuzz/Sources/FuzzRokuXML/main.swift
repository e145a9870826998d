import PhotonCore
import Roku

// Roku's XML answers (device-info, apps, active-app, media-player, tv-active-channel, tv-channels) through the strict XML reader: what
// parses serialises and parses back to the same tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let tree = try? XMLTree.parse(bytes) {
        let again = try? XMLTree.parse(Array(tree.serialized.utf8))
        precondition(again == tree, "an XML tree does not survive serialising")
    }
    if let info = try? RokuDeviceInfo.parse(bytes) {
        precondition(info.deviceID.hasPrefix("roku-") && !info.serial.isEmpty, "a device-info without a serial passed")
        if let mac = info.mac { precondition(MACAddress.bytes(mac) != nil, "an invalid MAC passed") }
        precondition((info.powerState == .on) == info.isOn, "power-mode read two ways")
    }
    _ = try? RokuApp.active(bytes)
    _ = try? RokuApp.list(bytes)
    _ = try? RokuPlayback.mediaPlayer(bytes)
    _ = try? RokuPlayback.activeChannel(bytes)
    if let channels = try? RokuChannelList.parse(bytes) {
        // A listed number is a channel number: it goes into a tuning request as parsed digits.
        for channel in channels { precondition((try? ChannelNumber(parsing: channel.number)) != nil, "a channel number that does not parse passed") }
    }
    return 0
}
