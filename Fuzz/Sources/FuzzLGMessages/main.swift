import LGWebOS
import PhotonCore

// LG SSAP frames from the TV's main socket: the frame itself, then every reader of its
// payload (hello, volume in both shapes, power, apps, playback, inputs, channels, MACs, the pointer
// socket's URL) and, for the emulator's side, a pointer-socket frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let message = try? SSAPMessage.parse(text) {
        _ = message.failure
        let payload = message.payload
        _ = LGHello(payload: payload)
        if let volume = LGState.volume(payload) {
            precondition(volume.level >= 0 && volume.level <= volume.maximum, "a volume outside its range")
        }
        if let on = LGState.isOn(payload), let power = LGState.powerState(payload) {
            precondition(on == (power.state == .on || power.state == .screenOff), "isOn and the power state disagree")
        }
        _ = LGState.foregroundApp(payload)
        _ = LGState.launchPoints(payload)
        _ = LGState.playback(payload)
        if let inputs = try? LGInputList.parse(payload, foregroundApp: "com.webos.app.hdmi1") {
            precondition(inputs.count <= 64 && inputs.allSatisfy { !$0.id.isEmpty && !$0.label.isEmpty }, "an input without an id or label passed")
        }
        if let channels = try? LGChannelList.parse(payload) {
            precondition(
                channels.count <= 5000 && channels.allSatisfy { !$0.id.isEmpty && !$0.number.isEmpty }, "a channel without an id or number passed")
        }
        for mac in LGState.macs(payload) { precondition(MACAddress.bytes(mac) != nil, "a MAC that does not parse back") }
        if let socket = try? LGState.pointerSocket(payload) {
            precondition(
                socket.path.hasPrefix("/") && !socket.path.contains("\r") && !socket.path.contains("\n"),
                "a pointer path that breaks the request line")
        }
    }
    _ = LGPointer.parse(text)
    return 0
}
