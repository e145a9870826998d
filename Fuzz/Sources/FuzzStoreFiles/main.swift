import PhotonCore
import PhotonStore

// The store's files (devices.json, secrets.json) as `Store` reads them — straight into the
// records when well formed, through `Decodable` otherwise — against `Decodable` alone: the
// same records or a failure on both sides, whatever the bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let devices = try? StoreFileFormat.devices(from: bytes)
    precondition(devices == (try? StoreFileFormat.devicesThroughDecodable(from: bytes)), "devices.json read two ways differs")
    let secrets = try? StoreFileFormat.secrets(from: bytes)
    precondition(secrets == (try? StoreFileFormat.secretsThroughDecodable(from: bytes)), "secrets.json read two ways differs")
    return 0
}
