import FireTV
import FireTVEmulator
import PhotonCore

// What an ADB peer sends: the message stream (header, magic, bounds, checksum), a host's
// public key (what the emulated device reads), the banner and dumpsys answers (what the
// adapter reads), and the quoting property: any ASCII text, typed by Photon's shell
// commands and read back by a shell's rules, is exactly that text, and runs nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var decoder = ADBMessageDecoder(checksRequired: bytes.first.map { $0 & 1 == 1 } ?? false, maximumPayload: 64 * 1024)
    decoder.append(bytes)
    while let message = try? decoder.next() {
        precondition(message.payload.count <= 64 * 1024, "a payload past the limit passed")
        var again = ADBMessageDecoder()
        again.append(message.encoded())
        precondition((try? again.next()) == message, "a message does not survive encoding")
    }
    if let key = try? ADBPublicKey.decode(bytes) {
        precondition(key.modulus.count == 256, "a key that is not 2048 bits passed")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = FireTVStateParsing.power(text)
    if let app = FireTVStateParsing.foreground(text) { precondition(ADBShellCommands.isPackageName(app), "a foreground app that is not a package") }
    if let commands = try? ADBShellCommands.typing(text) {
        guard let parsed = try? EmulatedShell.parse(commands.joined(separator: "; ")) else {
            preconditionFailure("Photon built a command line a shell would refuse: \(commands)")
        }
        var typed = ""
        for command in parsed {
            if command.words.count == 3, command.words[0] == "input", command.words[1] == "text" {
                typed += EmulatedShell.typed(command.words[2])
            } else if command.words == ["input", "keyevent", "KEYCODE_ENTER"] {
                typed += "\n"
            } else if command.words == ["input", "keyevent", "KEYCODE_TAB"] {
                typed += "\t"
            } else {
                preconditionFailure("Photon built another command than input: \(command.words)")
            }
        }
        let expected = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        precondition(
            typed == expected || typed == text.replacingOccurrences(of: "\r", with: "\n"),
            "typed \(typed.debugDescription) for \(text.debugDescription)")
    }
    if let launch = try? ADBShellCommands.launch(text) {
        precondition((try? EmulatedShell.parse(launch)) != nil, "a launch a shell would refuse: \(launch)")
    }
    return 0
}
