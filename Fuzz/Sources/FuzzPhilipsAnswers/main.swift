import Philips
import PhotonCore

// What the Philips adapter reads from a JointSpace TV. The first byte picks the parser:
// an answer body (JSON, repaired as TVs need) and every reading of it (system with its
// encrypted fields, power, volume, apps, the app in front, channels); a Digest challenge
// and the header answering it; an encrypted system field. Each reads or throws; what it
// reads stays within its bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let selector = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let text = String(decoding: rest, as: UTF8.self)
    switch selector % 3 {
    case 0:
        guard let answer = try? PhilipsJSON.parse(rest, what: "fuzz") else { return 0 }
        if let system = try? PhilipsSystem.parse(answer) {
            for id in [system.serial, system.deviceID].compactMap({ $0 }) {
                precondition(!id.isEmpty && id.utf8.count <= 64, "an unbounded identifier was read")
            }
            _ = try? system.checkPairable()
        }
        _ = try? PhilipsReadings.power(answer)
        if let volume = try? PhilipsReadings.volume(answer) {
            precondition((0...volume.maximum).contains(volume.level), "a volume out of range was read")
        }
        for app in PhilipsReadings.applications(answer) {
            precondition(PhilipsReadings.isName(app.package, limit: 128), "a package that cannot be sent back was read")
        }
        if let package = PhilipsReadings.currentPackage(answer) { precondition(PhilipsReadings.isName(package, limit: 128)) }
        for channel in PhilipsReadings.channels(answer) { precondition(Int(channel.id) != nil, "a channel without a ccid was read") }
    case 1:
        guard let challenge = try? DigestChallenge.parse(text) else { return 0 }
        let header = challenge.authorization(user: "u", password: "p", method: "GET", uri: "/6/powerstate", count: 1, clientNonce: "0a4f113b")
        precondition(!header.contains("\r") && !header.contains("\n"), "a Digest header that splits the request was built")
    default:
        if let plain = try? PhilipsSharedKey.decrypt(text) { precondition(plain.utf8.count <= 1024, "an unbounded field was decrypted") }
    }
    return 0
}
