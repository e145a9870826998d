import AppleTV
import PhotonCore

// Apple TV text-input archives: binary property lists and the keyed archives in them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // What decodes re-encodes to bytes that decode to the same encoding (compared as
    // bytes, since NaN is not equal to itself).
    if let value = try? BinaryPlist.decode(bytes) {
        let encoded = BinaryPlist.encode(value)
        guard let again = try? BinaryPlist.decode(encoded) else { preconditionFailure("an encoded list does not decode") }
        precondition(BinaryPlist.encode(again) == encoded, "a binary plist round trip changed \(value)")
    }
    // The archive readers either find their values or fail with an error.
    _ = try? RemoteTextInput.operation(in: bytes)
    _ = try? RemoteTextInput.session(in: bytes)
    _ = try? KeyedArchive.value(in: bytes, at: ["$top", "a", "b", "c"])
    return 0
}
