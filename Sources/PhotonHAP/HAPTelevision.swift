import PhotonCore

/// A HomeKit Television accessory as iOS's Control Center remote, Siri and the Home app
/// drive it: the Television service with its inputs (InputSource services) and its
/// speaker, laid out with stable instance ids, and what each controller write means for
/// the TV (`Request`).
public struct HAPTelevision: Sendable {
    /// One input or app offered as an InputSource: its stable identifier (1…), name and
    /// HAP input type (0 other, 2 tuner, 3 HDMI, 8 application…).
    public struct Input: Sendable, Equatable {
        public var identifier: Int
        public var name: String
        public var kind: Int
        public var isHidden: Bool

        public init(identifier: Int, name: String, kind: Int, isHidden: Bool = false) {
            self.identifier = identifier
            self.name = name
            self.kind = kind
            self.isHidden = isHidden
        }
    }

    /// What a controller asked the TV to do.
    public enum Request: Sendable, Equatable {
        case power(on: Bool)
        case input(identifier: Int)
        /// HAP's RemoteKey values: 4–7 arrows, 8 select, 9 back, 11 play/pause, 15 information.
        case remoteKey(Int)
        case media(play: Bool?)
        case volumeStep(up: Bool)
        case volume(Int)
        case mute(Bool)
        case settingsMenu
        case identify
    }

    /// HAP's short types.
    public enum Types {
        public static let television = "D8", inputSource = "D9", speaker = "113", information = "3E", protocolInformation = "A2"
        public static let active = "B0", activeIdentifier = "E7", configuredName = "E3", sleepDiscoveryMode = "E8"
        public static let remoteKey = "E1", currentMediaState = "E0", targetMediaState = "137", powerModeSelection = "DF"
        public static let inputSourceType = "DB", isConfigured = "D6", currentVisibility = "135", targetVisibility = "134"
        public static let identifier = "E6", name = "23", mute = "11A", volumeControlType = "E9", volumeSelector = "EA"
        public static let volume = "119", identify = "14"
    }

    /// Instance ids: the information service 1–7, protocol information 8–9, the Television
    /// 10–18, its speaker 30–35, input `n` (0-based) from 100 + 10·n.
    public enum IIDs {
        public static let identify = 2, active = 11, activeIdentifier = 12, configuredName = 13, sleepDiscoveryMode = 14
        public static let remoteKey = 15, currentMediaState = 16, targetMediaState = 17, powerModeSelection = 18
        public static let speaker = 30, mute = 31, speakerActive = 32, volumeControlType = 33, volumeSelector = 34, volume = 35
        public static func input(_ index: Int) -> Int { 100 + 10 * index }
    }

    /// HAP allows 100 services on an accessory; with the others, 90 inputs at most.
    public static let maximumInputs = 90

    public var name: String
    public var manufacturer: String
    public var model: String
    public var serialNumber: String
    public var inputs: [Input]
    /// Whether the speaker takes an absolute level (Volume) besides steps.
    public var hasVolumeLevel: Bool

    public init(name: String, manufacturer: String, model: String, serialNumber: String, inputs: [Input], hasVolumeLevel: Bool) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.inputs = Array(inputs.prefix(Self.maximumInputs))
        self.hasVolumeLevel = hasVolumeLevel
    }

    /// The accessory with initial values (off, the first input, not playing).
    public var accessory: HAPAccessory {
        typealias C = HAPCharacteristic
        let readOnly: C.Permissions = [.read, .events]
        let readWrite: C.Permissions = [.read, .write, .events]
        let information = HAPService(
            Types.information, iid: 1,
            characteristics: [
                C(Types.identify, iid: IIDs.identify, format: .bool, permissions: [.write]),
                C("20", iid: 3, format: .string, permissions: [.read], value: .string(manufacturer)),
                C("21", iid: 4, format: .string, permissions: [.read], value: .string(model)),
                C(Types.name, iid: 5, format: .string, permissions: [.read], value: .string(name)),
                C("30", iid: 6, format: .string, permissions: [.read], value: .string(serialNumber)),
                C("52", iid: 7, format: .string, permissions: [.read], value: .string("1.0.0")),
            ])
        let protocolInformation = HAPService(
            Types.protocolInformation, iid: 8, characteristics: [C("37", iid: 9, format: .string, permissions: [.read], value: .string("1.1.0"))])
        let inputIIDs = inputs.indices.map { IIDs.input($0) }
        let television = HAPService(
            Types.television, iid: 10,
            characteristics: [
                C(
                    Types.active, iid: IIDs.active, format: .uint8, permissions: readWrite, value: .int(0), minimum: 0, maximum: 1,
                    validValues: [0, 1]),
                C(
                    Types.activeIdentifier, iid: IIDs.activeIdentifier, format: .uint32, permissions: readWrite,
                    value: .int(inputs.first?.identifier ?? 0)),
                C(Types.configuredName, iid: IIDs.configuredName, format: .string, permissions: readWrite, value: .string(name)),
                C(
                    Types.sleepDiscoveryMode, iid: IIDs.sleepDiscoveryMode, format: .uint8, permissions: readOnly, value: .int(1), minimum: 0,
                    maximum: 1),
                C(Types.remoteKey, iid: IIDs.remoteKey, format: .uint8, permissions: [.write], minimum: 0, maximum: 16, validValues: Array(0...16)),
                C(
                    Types.currentMediaState, iid: IIDs.currentMediaState, format: .uint8, permissions: readOnly, value: .int(5), minimum: 0,
                    maximum: 5),
                C(
                    Types.targetMediaState, iid: IIDs.targetMediaState, format: .uint8, permissions: readWrite, value: .int(1), minimum: 0,
                    maximum: 2),
                C(Types.powerModeSelection, iid: IIDs.powerModeSelection, format: .uint8, permissions: [.write], validValues: [0]),
            ], isPrimary: true, linked: inputIIDs + [IIDs.speaker])
        var speakerCharacteristics = [
            C(Types.mute, iid: IIDs.mute, format: .bool, permissions: readWrite, value: .bool(false)),
            C(Types.active, iid: IIDs.speakerActive, format: .uint8, permissions: readWrite, value: .int(1), minimum: 0, maximum: 1),
            C(
                Types.volumeControlType, iid: IIDs.volumeControlType, format: .uint8, permissions: readOnly,
                value: .int(hasVolumeLevel ? 3 : 1), minimum: 0, maximum: 3),
            C(Types.volumeSelector, iid: IIDs.volumeSelector, format: .uint8, permissions: [.write], minimum: 0, maximum: 1, validValues: [0, 1]),
        ]
        if hasVolumeLevel {
            speakerCharacteristics.append(
                C(Types.volume, iid: IIDs.volume, format: .uint8, permissions: readWrite, value: .int(0), minimum: 0, maximum: 100, step: 1))
        }
        let speaker = HAPService(Types.speaker, iid: IIDs.speaker, characteristics: speakerCharacteristics)
        let sources = inputs.enumerated().map { index, input in
            let base = IIDs.input(index)
            let visibility = HAPValue.int(input.isHidden ? 1 : 0)
            return HAPService(
                Types.inputSource, iid: base,
                characteristics: [
                    C(Types.configuredName, iid: base + 1, format: .string, permissions: readWrite, value: .string(input.name)),
                    C(Types.inputSourceType, iid: base + 2, format: .uint8, permissions: readOnly, value: .int(input.kind), minimum: 0, maximum: 10),
                    C(Types.isConfigured, iid: base + 3, format: .uint8, permissions: readWrite, value: .int(1), minimum: 0, maximum: 1),
                    C(Types.currentVisibility, iid: base + 4, format: .uint8, permissions: readOnly, value: visibility, minimum: 0, maximum: 3),
                    C(Types.targetVisibility, iid: base + 5, format: .uint8, permissions: readWrite, value: visibility, minimum: 0, maximum: 1),
                    C(Types.identifier, iid: base + 6, format: .uint32, permissions: [.read], value: .int(input.identifier)),
                    C(Types.name, iid: base + 7, format: .string, permissions: [.read], value: .string(input.name)),
                ])
        }
        return HAPAccessory(services: [information, protocolInformation, television, speaker] + sources)
    }

    /// What a write of `value` to `iid` asks of the TV, or nil for a write that only
    /// changes what the accessory remembers (names, visibility) or that no TV action
    /// follows.
    public static func request(writing value: HAPValue, to iid: Int) -> Request? {
        let number = value.intValue
        switch iid {
        case IIDs.identify: return .identify
        case IIDs.active: return number.map { .power(on: $0 == 1) }
        case IIDs.activeIdentifier: return number.map { .input(identifier: $0) }
        case IIDs.remoteKey: return number.map { .remoteKey($0) }
        case IIDs.targetMediaState: return number.map { .media(play: $0 == 0 ? true : $0 == 1 ? false : nil) }
        case IIDs.volumeSelector: return number.map { .volumeStep(up: $0 == 0) }
        case IIDs.volume: return number.map { .volume($0) }
        case IIDs.mute: if case .bool(let muted) = value { return .mute(muted) } else { return number.map { .mute($0 == 1) } }
        case IIDs.powerModeSelection: return .settingsMenu
        default: return nil
        }
    }
}
