import Foundation

/// An input to switch to, as a user names it: a standard one (`hdmi1`…`hdmi4`, `tv`,
/// `av`, `component`) that every brand maps to its own key or call, or the TV's own
/// label for one ("PlayStation"), which only a TV that lists its inputs can resolve.
public enum InputName: Sendable, Hashable, CustomStringConvertible {
    case hdmi(Int)
    /// The built-in tuner (`tv`).
    case tuner
    /// Composite video (`av`).
    case composite
    case component
    /// A label the TV shows for one of its inputs.
    case label(String)

    /// The standard names, as `photon input` takes them.
    public static let standardNames = ["hdmi1", "hdmi2", "hdmi3", "hdmi4", "tv", "av", "component"]

    /// Reads a name: the standard ones in any case and spacing (`HDMI 2`, `hdmi-2`,
    /// `tuner`, `composite`), anything else as a label. Throws `usage` for an empty or
    /// over-long name or one with control characters.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64, !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw PhotonError(
                .usage, "give an input: hdmi1…hdmi4, tv, av, component, or the TV's label for it (1 to 64 characters)",
                hint: "`photon input TV` lists the inputs of a TV that can list them")
        }
        let compact = String(trimmed.lowercased().unicodeScalars.filter { !" -_".unicodeScalars.contains($0) })
        switch compact {
        case "tv", "tuner", "antenna", "livetv", "dtv": self = .tuner
        case "av", "composite", "av1": self = .composite
        case "component", "component1", "comp": self = .component
        default:
            if compact.hasPrefix("hdmi"), let n = Int(compact.dropFirst(4)), (1...4).contains(n), compact.count == 5 {
                self = .hdmi(n)
            } else {
                self = .label(trimmed)
            }
        }
    }

    /// The name as `photon input` prints and takes it.
    public var description: String {
        switch self {
        case .hdmi(let n): return "hdmi\(n)"
        case .tuner: return "tv"
        case .composite: return "av"
        case .component: return "component"
        case .label(let label): return label
        }
    }
}

/// One input of a TV that lists them: the brand's id for it, the label the TV shows, the
/// standard name it is (when it is one), and whether it is the one on screen.
public struct TVInput: Sendable, Hashable {
    public var id: String
    public var label: String
    public var standard: InputName?
    public var active: Bool?

    public init(id: String, label: String, standard: InputName?, active: Bool? = nil) {
        self.id = id
        self.label = label
        self.standard = standard
        self.active = active
    }
}

extension Array where Element == TVInput {
    /// The input `name` means on this TV: the one whose label it is (case-insensitive),
    /// else the one of that standard name. Throws `not_found` with the TV's inputs.
    public func matching(_ name: InputName) throws -> TVInput {
        let wanted = name.description.lowercased()
        if let byLabel = first(where: { $0.label.lowercased() == wanted }) { return byLabel }
        if let byKind = first(where: { $0.standard != nil && $0.standard == name }) { return byKind }
        throw PhotonError(
            .notFound, "the TV has no input '\(Redaction.sanitize(name.description))'",
            hint: isEmpty
                ? "it lists no inputs"
                : "its inputs: "
                    + map { input in
                        input.standard.map {
                            "\($0)" + (input.label.lowercased() == "\($0)" ? "" : " (\(Redaction.sanitize(input.label, limit: 40)))")
                        }
                            ?? Redaction.sanitize(input.label, limit: 40)
                    }.joined(separator: ", "))
    }
}

/// Switches the TV to an input (capability `inputs`). A brand that cannot resolve labels
/// (it has no input list) refuses `.label` with `unsupported`.
public protocol InputSwitching: RemoteSession {
    func switchInput(_ input: InputName) async throws
}

/// Lists the TV's inputs (capability `input-list`).
public protocol InputListing: RemoteSession {
    func inputs() async throws -> [TVInput]
}

extension InputName {
    /// The refusal of a brand that can only send the standard inputs' keys.
    public static func labelsNeedAList(_ label: String, brand: String) -> PhotonError {
        PhotonError.unsupported(
            "\(brand) cannot list the TV's inputs, so '\(Redaction.sanitize(label))' cannot be looked up; nothing was sent",
            hint: "use a standard name: \(standardNames.joined(separator: ", "))")
    }
}
