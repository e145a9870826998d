import PhotonCore
import SamsungTV

// What Photon reads from a Frame's art app, and the words every door reads for `art`. The
// first byte picks: an art-channel frame and every reading of its answer (art mode, the
// content list, an upload address); a transfer header (length-prefixed JSON); the words
// of an art command. Each reads or throws; what it reads stays within its bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let selector = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let text = String(decoding: rest, as: UTF8.self)
    switch selector % 3 {
    case 0:
        guard let answer = (try? SamsungArtMessage.parse(text)) ?? nil else { return 0 }
        if let id = answer.requestID { precondition(id.utf8.count <= 128 && !id.contains("\""), "an id that cannot be matched was read") }
        _ = SamsungArtMessage.artMode(answer.payload)
        if let list = try? SamsungArtMessage.contentList(answer.payload) {
            precondition(list.count <= 2000 && list.allSatisfy { ArtCommand.isIdentifier($0.contentID) }, "an unbounded content list was read")
        }
        if let target = try? SamsungArtMessage.connection(answer.payload) { precondition(target.port > 0 && !target.ip.isEmpty) }
    case 1:
        if let (header, consumed) = (try? SamsungArtMessage.readHeader(rest)) ?? nil {
            precondition(consumed <= rest.count && header.isObject, "a header past the bytes was read")
        }
    default:
        if let command = try? ArtCommand(words: text) {
            precondition((try? ArtCommand(words: command.description)) == command, "art words that do not read back")
        }
    }
    return 0
}
