import Foundation
import PhotonJSON

// Photon's JSON parser, checked against itself (what parses re-encodes and parses to the
// same value) and against Foundation's JSONSerialization (what Photon accepts, Foundation
// accepts too).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let value = try? JSONValue.parse(bytes, maximumDepth: 16) else { return 0 }
    let encoded = value.encoded
    guard let again = try? JSONValue.parse(encoded) else { preconditionFailure("its own output does not parse: \(encoded)") }
    precondition(again == value, "a round trip changed the value: \(encoded)")
    precondition(
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil,
        "Photon accepts what Foundation refuses")
    return 0
}
