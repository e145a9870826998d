import PhotonCore

// SSDP answers (UDP datagrams from anyone on the LAN), with and without a sender check.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let answer = try? SSDP.parse(bytes) {
        _ = SSDP.service(answer)
        if let checked = try? SSDP.parse(bytes, sender: answer.host) {
            precondition(checked == answer, "the sender check changed the answer")
        }
    }
    return 0
}
