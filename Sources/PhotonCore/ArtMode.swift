/// What a TV that shows artwork when "off" (Samsung's The Frame) can be asked: art mode on
/// or off, which artwork to show, deleting one, the matte around one, the brightness of art
/// mode, the slideshow. Read from words (`show MY_F0003`, `brightness 6`) by the command
/// catalog's `art` entry; uploads are their own command (`ArtUpload`), too large for a
/// request line.
public enum ArtCommand: Sendable, Hashable, CustomStringConvertible {
    case mode(on: Bool)
    case show(contentID: String)
    case delete(contentID: String)
    case brightness(Int)
    case matte(contentID: String, matte: String)
    /// Minutes between artworks; nil switches the slideshow off.
    case slideshow(minutes: Int?)

    /// Brightness levels of art mode (samsungtvws: 1 to 10 on 2022+ Frames, 0 to 3 before;
    /// the TV refuses what it lacks).
    public static let brightnessLevels = 0...10
    /// Slideshow intervals in minutes (3 minutes to a week).
    public static let slideshowMinutes = 3...10080

    /// Reads the words after `art`: `on`, `off`, `show ID`, `delete ID`, `brightness N`,
    /// `matte ID MATTE`, `slideshow MINUTES|off`. Throws `usage` otherwise.
    public init(words: String) throws {
        let parts = words.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        func id(_ index: Int) throws -> String {
            guard parts.count > index, Self.isIdentifier(parts[index]) else {
                throw PhotonError(
                    .usage, "art \(parts.first ?? "") needs a content or matte id (letters, digits, - and _; as `photon art TV` lists them)")
            }
            return parts[index]
        }
        func count(_ n: Int) throws {
            guard parts.count == n else { throw PhotonError(.usage, "art \(parts[0]) takes \(n - 1) value\(n == 2 ? "" : "s")") }
        }
        switch parts.first?.lowercased() {
        case "on"?, "off"?:
            try count(1)
            self = .mode(on: parts[0].lowercased() == "on")
        case "show"?:
            try count(2)
            self = .show(contentID: try id(1))
        case "delete"?:
            try count(2)
            self = .delete(contentID: try id(1))
        case "brightness"?:
            try count(2)
            guard let level = Int(parts[1]), Self.brightnessLevels.contains(level) else {
                throw PhotonError(.usage, "art brightness is \(Self.brightnessLevels.lowerBound) to \(Self.brightnessLevels.upperBound)")
            }
            self = .brightness(level)
        case "matte"?:
            try count(3)
            self = .matte(contentID: try id(1), matte: try id(2))
        case "slideshow"?:
            try count(2)
            if parts[1].lowercased() == "off" {
                self = .slideshow(minutes: nil)
            } else {
                guard let minutes = Int(parts[1]), Self.slideshowMinutes.contains(minutes) else {
                    throw PhotonError(
                        .usage, "art slideshow takes minutes (\(Self.slideshowMinutes.lowerBound) to \(Self.slideshowMinutes.upperBound)) or off")
                }
                self = .slideshow(minutes: minutes)
            }
        default:
            throw PhotonError(
                .usage, "art takes on, off, show ID, delete ID, brightness N, matte ID MATTE or slideshow MINUTES|off",
                hint: "without them, `photon art TV` lists the artworks; `photon art TV upload FILE` adds one")
        }
    }

    /// A content or matte id the TV may be sent: letters, digits, `-` and `_`, 1 to 64.
    public static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == 45 || $0 == 95 }
    }

    /// The words this command is read from.
    public var description: String {
        switch self {
        case .mode(let on): return on ? "on" : "off"
        case .show(let id): return "show \(id)"
        case .delete(let id): return "delete \(id)"
        case .brightness(let level): return "brightness \(level)"
        case .matte(let id, let matte): return "matte \(id) \(matte)"
        case .slideshow(let minutes): return "slideshow \(minutes.map(String.init) ?? "off")"
        }
    }
}

/// An image to add to the TV's artwork: JPEG or PNG bytes (checked by their signature),
/// bounded, with the matte to show it in. `receipt` gets the content id the TV gives it,
/// and the upload's progress on the way.
public struct ArtUpload: Sendable, Hashable {
    public var bytes: [UInt8]
    public var fileType: String
    public var matte: String
    public let receipt: ArtUploadReceipt

    /// The largest image Photon uploads (the Frame's own app stops near 20 MB).
    public static let maximumBytes = 20 * 1024 * 1024

    /// Checks the bytes are a JPEG or PNG within the limit.
    public init(bytes: [UInt8], matte: String = "none", receipt: ArtUploadReceipt = ArtUploadReceipt()) throws {
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes else {
            throw PhotonError(.usage, "an artwork is 1 byte to \(Self.maximumBytes / 1024 / 1024) MiB, not \(bytes.count) bytes")
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            fileType = "jpg"
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            fileType = "png"
        } else {
            throw PhotonError(.usage, "the file is not a JPEG or PNG image", hint: "the Frame shows JPEG and PNG artwork")
        }
        guard ArtCommand.isIdentifier(matte) else { throw PhotonError(.usage, "a matte is an id such as none or shadowbox_polar") }
        self.bytes = bytes
        self.matte = matte
        self.receipt = receipt
    }

    public static func == (a: ArtUpload, b: ArtUpload) -> Bool { a.receipt === b.receipt }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(receipt)) }
}

/// Where an upload reports back: the bytes sent so far (for a progress bar) and the
/// content id the TV gave the new artwork.
public final class ArtUploadReceipt: Sendable {
    private let state = Locked<(sent: Int, contentID: String?)>((0, nil))
    private let onProgress: @Sendable (Int) -> Void

    public init(onProgress: @escaping @Sendable (Int) -> Void = { _ in }) { self.onProgress = onProgress }

    public var contentID: String? { state.withLock { $0.contentID } }
    public var bytesSent: Int { state.withLock { $0.sent } }

    public func progress(_ sent: Int) {
        state.withLock { $0.sent = sent }
        onProgress(sent)
    }

    public func finished(contentID: String) { state.withLock { $0.contentID = contentID } }
}

/// A TV with art mode (capability `art-mode`, Samsung's The Frame): its artworks (the one
/// shown marked), the art commands and uploads. A session reports art mode as
/// `TVEvent.powerState(.art, …)` with `.power(isOn: false)`.
public protocol ArtControlling: RemoteSession {
    func artworks() async throws -> [TVListItem]
    func art(_ command: ArtCommand) async throws
    func uploadArt(_ upload: ArtUpload) async throws
}
