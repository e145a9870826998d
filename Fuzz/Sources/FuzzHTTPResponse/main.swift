import PhotonCore

// HTTP response heads and bodies (Content-Length, chunked, until close), fed in pieces
// whose sizes come from the input, then as one piece: both must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let step = Int(first % 16) + 1
    let input = Array(bytes.dropFirst())

    var whole = HTTPResponseParser(maxBody: 4096)
    whole.append(input)
    let once = Result { try whole.next(atEnd: true) }

    var pieces = HTTPResponseParser(maxBody: 4096)
    var early: HTTPClient.Response?
    var failed = false
    var offset = 0
    while offset < input.count, early == nil, !failed {
        pieces.append(Array(input[offset..<min(offset + step, input.count)]))
        offset += step
        do { early = try pieces.next() } catch { failed = true }
    }
    if !failed, early == nil { early = try? pieces.next(atEnd: true) }
    if case .success(let response?) = once {
        precondition(response.body.count <= 4096, "a body over the limit was returned")
        precondition((100...599).contains(response.status), "a status out of range was returned")
        if let early, case .length = try? HTTPBodyFraming.of(response: response.head, status: response.status, maxBody: 4096) {
            precondition(early.body == response.body, "split parsing disagrees with whole parsing")
        }
    }
    return 0
}
