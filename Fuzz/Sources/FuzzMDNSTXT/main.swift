import PhotonCore

// DNS-SD TXT records in wire form (length-prefixed strings).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let records = MDNSTXT.decode(wire: bytes)
    precondition(records.count <= MDNSTXT.maximumEntries, "too many entries")
    for (key, value) in records {
        precondition(!key.isEmpty && !key.contains("=") && value.count <= 256, "a bad entry passed")
    }
    return 0
}
