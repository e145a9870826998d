import PhotonCore
import SamsungTV

// Samsung channel events (`ms.channel.connect`, `ed.apps.launch`, errors…) as text frames.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if case .connect(_, let token)? = try? SamsungEvent.parse(text), let token {
        precondition(
            token.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 },
            "a token with characters that do not belong in a URL")
        _ = SamsungCommand.channelTarget(clientName: "fuzz", token: token)
    }
    return 0
}
