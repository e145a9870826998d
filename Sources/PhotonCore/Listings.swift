/// What a TV can be asked to list — its apps, inputs and channels — through one path from every
/// door (the façade, the daemon's `items` request, the CLI), so a new kind of list is a
/// case here and a protocol its adapters adopt, never another query in each door.
public enum TVListKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case apps
    case inputs
    case channels
    /// Where the TV's audio can go (`photon sound TV`).
    case soundOutputs = "sound-outputs"
    /// The TV's picture modes (`photon picture TV`).
    case pictureModes = "picture-modes"
    /// The TV's ambient light styles (`photon ambilight TV`).
    case ambilightStyles = "ambilight-styles"
    /// The TV's artworks, the one shown marked (`photon art TV`).
    case artworks

    /// The capability a TV declares when it can give this list.
    public var requiredCapability: Capability {
        switch self {
        case .apps: return .appList
        case .inputs: return .inputList
        case .channels: return .channelList
        case .soundOutputs: return .soundOutput
        case .pictureModes: return .pictureMode
        case .ambilightStyles: return .ambilight
        case .artworks: return .artMode
        }
    }

    public var description: String { rawValue }

    /// The list from `session`, or `unsupported` when its brand cannot give it. This
    /// switch is the only one over the kinds on the way to a TV.
    public func items(on session: any RemoteSession) async throws -> [TVListItem] {
        guard session.capabilities.contains(requiredCapability) else {
            if let reason = session.unavailability(of: requiredCapability) { throw reason }
            switch self {
            case .apps:
                throw PhotonError.unsupported(
                    "the TV cannot list its apps",
                    hint: "its brand's protocol has no app list; its capabilities: "
                        + session.capabilities.sortedNames.joined(separator: ", "))
            case .channels:
                throw PhotonError.unsupported(
                    "the TV cannot list its channels", hint: "its brand's protocol has no channel list; `photon channel TV NUMBER` types the digits")
            case .soundOutputs:
                throw PhotonError.unsupported(
                    "the TV cannot say where its audio goes", hint: "its brand's protocol has no sound output call")
            case .pictureModes:
                throw PhotonError.unsupported("the TV cannot list its picture modes", hint: "its brand's protocol has no picture mode call")
            case .artworks:
                throw PhotonError.unsupported("the TV has no art mode", hint: "`photon art --help` names the brands that have one")
            case .ambilightStyles:
                throw PhotonError.unsupported(
                    "the TV has no ambient light Photon can drive", hint: "`photon ambilight --help` names the brands that have one")
            case .inputs:
                throw PhotonError.unsupported(
                    "the TV cannot list its inputs",
                    hint: "its brand's protocol has no input list"
                        + (session.capabilities.contains(.inputs)
                            ? "; switch with a standard name: \(InputName.standardNames.joined(separator: ", "))" : ""))
            }
        }
        switch self {
        case .apps:
            let apps = try await RemoteCommand.implementation(of: AppListing.self, in: session, for: requiredCapability).installedApps()
            return apps.map { TVListItem(id: $0.id, name: $0.name) }
        case .inputs:
            let inputs = try await RemoteCommand.implementation(of: InputListing.self, in: session, for: requiredCapability).inputs()
            return inputs.map { TVListItem(id: $0.id, name: $0.label, kind: $0.standard?.description, active: $0.active) }
        case .channels:
            let channels = try await RemoteCommand.implementation(of: ChannelListing.self, in: session, for: requiredCapability).channels()
            return channels.map { TVListItem(id: $0.id, name: $0.name, number: $0.number) }
        case .soundOutputs:
            return try await RemoteCommand.implementation(of: SoundOutputSwitching.self, in: session, for: requiredCapability).soundOutputs()
        case .pictureModes:
            return try await RemoteCommand.implementation(of: PictureModeSwitching.self, in: session, for: requiredCapability).pictureModes()
        case .ambilightStyles:
            return try await RemoteCommand.implementation(of: AmbilightControlling.self, in: session, for: requiredCapability).ambilightStyles()
        case .artworks:
            return try await RemoteCommand.implementation(of: ArtControlling.self, in: session, for: requiredCapability).artworks()
        }
    }
}

/// One entry of a TV's list: the id the TV uses, its name, for inputs the standard name
/// it is (`hdmi2`) and whether it is the one in front, for channels its number.
public struct TVListItem: Sendable, Hashable {
    public var id: String
    public var name: String
    public var kind: String?
    public var number: String?
    public var active: Bool?

    public init(id: String, name: String, kind: String? = nil, number: String? = nil, active: Bool? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.number = number
        self.active = active
    }
}
