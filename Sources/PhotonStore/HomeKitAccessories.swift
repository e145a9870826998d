import Foundation
import PhotonCore
import PhotonHAP

/// The HomeKit door's accessories, one per paired TV, in `homekit.json` in the data
/// directory (0600): each accessory's identity (long-term key, setup code, pairings — all
/// secret), the port it listens on (stable across restarts, so controllers find it where
/// they left it), and the identifiers its inputs and apps were given (stable, so a scene
/// that picks "HDMI 2" keeps picking it).
public struct HomeKitFile: Codable, Sendable, VersionedStoreFile {
    public static let currentSchemaVersion = 1
    public var schemaVersion = HomeKitFile.currentSchemaVersion
    /// By the TV's device id.
    public var accessories: [String: HomeKitAccessoryRecord] = [:]
    public init() {}
}

/// One TV's accessory.
public struct HomeKitAccessoryRecord: Codable, Sendable, Equatable {
    public var identity: HAPAccessoryIdentity
    /// 0 until the door first listens.
    public var port: UInt16
    /// Input and app keys (`input:hdmi1`, `app:12`) to their InputSource identifiers.
    public var sources: [String: Int]
    /// Names given in the Home app: by InputSource identifier, and `tv` for the TV's own.
    public var names: [String: String]?
    /// InputSource identifiers hidden in the Home app.
    public var hidden: [Int]?
    /// Control Center's keys sent as other keys (`information` → `home`), by HAP's key name.
    public var keyRemap: [String: String]?

    public init(identity: HAPAccessoryIdentity, port: UInt16 = 0, sources: [String: Int] = [:]) {
        self.identity = identity
        self.port = port
        self.sources = sources
    }
}

extension StorePaths {
    /// The HomeKit door's accessories (0600).
    public var homeKitFile: URL { dataDirectory.appendingPathComponent("homekit.json") }
}

extension Store {
    /// Every TV's HomeKit accessory.
    public func homeKitAccessories() async throws -> HomeKitFile {
        try await locked { try loadHomeKit() }
    }

    /// The accessory of `deviceID`, made (new id, keys and code) when it has none yet.
    public func homeKitAccessory(for deviceID: String) async throws -> HomeKitAccessoryRecord {
        try await updateHomeKit { file in
            if let record = file.accessories[deviceID] { return record }
            let record = HomeKitAccessoryRecord(identity: try .fresh())
            file.accessories[deviceID] = record
            return record
        }
    }

    /// Changes the accessory of `deviceID` (made first if missing) and returns it.
    @discardableResult
    public func updateHomeKitAccessory(for deviceID: String, _ body: @Sendable (inout HomeKitAccessoryRecord) throws -> Void) async throws
        -> HomeKitAccessoryRecord
    {
        try await updateHomeKit { file in
            var record = try file.accessories[deviceID] ?? HomeKitAccessoryRecord(identity: .fresh())
            try body(&record)
            file.accessories[deviceID] = record
            return record
        }
    }

    /// A new identity for `deviceID`'s accessory (new id, keys and code; every pairing
    /// gone); its port and input identifiers stay.
    @discardableResult
    public func resetHomeKitAccessory(for deviceID: String) async throws -> HomeKitAccessoryRecord {
        try await updateHomeKitAccessory(for: deviceID) { record in
            let configuration = record.identity.configurationNumber
            record.identity = try .fresh()
            record.identity.configurationNumber = configuration
            record.identity.bumpConfiguration()
        }
    }

    /// Removes the controller `controllerID` from `deviceID`'s accessory (all of them when
    /// no admin is left); false when it was not paired.
    public func revokeHomeKitController(_ controllerID: String, for deviceID: String) async throws -> Bool {
        try await updateHomeKit { file in
            guard var record = file.accessories[deviceID], record.identity.pairings.contains(where: { $0.id == controllerID }) else {
                return false
            }
            record.identity.pairings.removeAll { $0.id == controllerID }
            if !record.identity.pairings.contains(where: \.isAdmin) { record.identity.pairings = [] }
            file.accessories[deviceID] = record
            return true
        }
    }

    /// Forgets the accessory of a TV no longer paired.
    public func removeHomeKitAccessory(for deviceID: String) async throws {
        try await updateHomeKit { file in file.accessories[deviceID] = nil }
    }

    private func loadHomeKit() throws -> HomeKitFile {
        try load(HomeKitFile.self, from: paths.homeKitFile.path, schemaVersion: HomeKitFile.currentSchemaVersion) ?? HomeKitFile()
    }

    private func updateHomeKit<R: Sendable>(_ body: (inout HomeKitFile) throws -> R) async throws -> R {
        try await locked {
            var file = try loadHomeKit()
            let result = try body(&file)
            try write(file, to: paths.homeKitFile.path)
            return result
        }
    }
}
