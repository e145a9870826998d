import PhotonCore
import PhotonCrypto
import PhotonJSON

/// What an accessory server asks of the one who runs it: doing what a controller asked,
/// keeping the pairings, and a log line (never with a code or a key).
public protocol HAPAccessoryDelegate: Sendable {
    /// Does `request` on the TV for the verified controller `controller`; the HAP status to
    /// answer (`success`, or why not).
    func perform(_ request: HAPTelevision.Request, controller: String) async -> HAPStatus
    /// The identity changed (a pairing added or removed): store it before the answer goes out.
    func store(_ identity: HAPAccessoryIdentity) async throws
    func log(_ line: String)
    /// A controller changed what the accessory remembers (a name, an input hidden): keep it.
    func remember(_ iid: Int, _ value: HAPValue) async
}

extension HAPAccessoryDelegate {
    public func remember(_ iid: Int, _ value: HAPValue) async {}
}

/// One HomeKit accessory's server, without sockets: pair-setup (SRP in HAP's padded
/// convention, throttled), pair-verify, the pairings a controller manages, the accessory's
/// characteristics read, written and subscribed to, and events to the connections that
/// asked for them. Each TCP connection is an `HAPConnection` the runner feeds with bytes.
public final class HAPAccessoryServer: Sendable {
    /// Wrong setup codes after which pair-setup answers MaxTries until the server restarts
    /// or the accessory is reset.
    public static let maximumWrongCodes = 10

    struct State {
        var identity: HAPAccessoryIdentity
        var accessory: HAPAccessory
        var connections: [ObjectIdentifier: HAPConnection] = [:]
        /// The connection running pair-setup, if any (another one is told Busy).
        var setupOwner: ObjectIdentifier?
        var wrongCodes = 0
        /// Moves when the server changes its identity and again when the change is stored, so
        /// a copy of the store read meanwhile is known to be stale (`adopt(_:since:)`).
        var generation = 0
    }

    let state: Locked<State>
    let delegate: any HAPAccessoryDelegate

    public init(identity: HAPAccessoryIdentity, accessory: HAPAccessory, delegate: any HAPAccessoryDelegate) {
        state = Locked(State(identity: identity, accessory: accessory))
        self.delegate = delegate
    }

    public var identity: HAPAccessoryIdentity { state.withLock { $0.identity } }
    public var accessory: HAPAccessory { state.withLock { $0.accessory } }

    /// A new connection; `write` queues bytes for it in order (it must not block), `close`
    /// ends it (a removed controller is cut at once).
    public func connect(write: @escaping @Sendable ([UInt8]) -> Void, close: @escaping @Sendable () -> Void) -> HAPConnection {
        let connection = HAPConnection(server: self, write: write, close: close)
        state.withLock { $0.connections[ObjectIdentifier(connection)] = connection }
        return connection
    }

    func disconnected(_ connection: HAPConnection) {
        state.withLock { s in
            s.connections[ObjectIdentifier(connection)] = nil
            if s.setupOwner == ObjectIdentifier(connection) { s.setupOwner = nil }
        }
    }

    /// The TV reported a value: kept, and sent to every connection that subscribed to it.
    public func update(_ iid: Int, to value: HAPValue) {
        changed(iid, to: value, except: nil)
    }

    func changed(_ iid: Int, to value: HAPValue, except origin: HAPConnection?) {
        let subscribers = state.withLock { s -> [HAPConnection] in
            guard s.accessory.characteristic(iid)?.value != value, s.accessory.set(iid, to: value) else { return [] }
            return s.connections.values.filter { $0 !== origin }
        }
        let aid = accessory.aid
        let body = JSONValue.object([
            ("characteristics", .array([.object([("aid", .int(aid)), ("iid", .int(iid)), ("value", value.json)])]))
        ])
        for connection in subscribers where connection.isSubscribed(to: iid) {
            connection.send(HAPResponse.event(Array(body.encoded.utf8)))
        }
    }

    /// Answers one request on `connection`.
    func answer(_ request: HAPRequest, on connection: HAPConnection) async -> HAPResponse {
        switch (request.method, request.path) {
        case ("POST", "/pair-setup"): return await pairSetup(request, on: connection)
        case ("POST", "/pair-verify"): return pairVerify(request, on: connection)
        case ("POST", "/identify"):
            guard !identity.isPaired else { return Self.status(400, .insufficientPrivileges) }
            _ = await delegate.perform(.identify, controller: "")
            return HAPResponse(status: 204)
        default: break
        }
        guard let controller = connection.controllerID else { return Self.status(470, .insufficientAuthorization) }
        switch (request.method, request.path) {
        case ("GET", "/accessories"): return .json(200, Array(accessory.document.encoded.utf8))
        case ("GET", "/characteristics"): return read(request, on: connection)
        case ("PUT", "/characteristics"): return await write(request, on: connection, controller: controller)
        case ("POST", "/pairings"): return await pairings(request, controller: controller)
        case (_, "/accessories"), (_, "/characteristics"), (_, "/pairings"), (_, "/pair-setup"), (_, "/pair-verify"):
            return HAPResponse(status: 405)
        default: return HAPResponse(status: 404)
        }
    }

    static func status(_ code: Int, _ status: HAPStatus) -> HAPResponse {
        .json(code, Array(JSONValue.object([("status", .int(status.rawValue))]).encoded.utf8))
    }

    // MARK: Pair-setup and pair-verify

    func pairSetup(_ request: HAPRequest, on connection: HAPConnection) async -> HAPResponse {
        guard let tlv = try? TLV8.decode(request.body), let step = tlv.byte(.state) else {
            return .pairing(PairSetupAccessory.error(state: 2, .unknown))
        }
        let id = ObjectIdentifier(connection)
        switch step {
        case 1:
            let (refusal, identity): (TLV8.ErrorCode?, HAPAccessoryIdentity) = state.withLock { s in
                if s.identity.isPaired { return (.unavailable, s.identity) }
                if s.wrongCodes >= Self.maximumWrongCodes { return (.maxTries, s.identity) }
                if let owner = s.setupOwner, owner != id { return (.busy, s.identity) }
                s.setupOwner = id
                return (nil, s.identity)
            }
            if let refusal {
                delegate.log("homekit: pair-setup refused (\(refusal))")
                return .pairing(PairSetupAccessory.error(state: 2, refusal))
            }
            do {
                let key = try Ed25519PrivateKey(rawRepresentation: identity.signingKey)
                let accessory = try PairSetupAccessory(
                    code: identity.setupCode.formatted, accessoryID: Array(identity.deviceID.utf8), signingKey: key, convention: .padded)
                let m2 = try accessory.m2(answering: tlv)
                connection.setup(accessory)
                return .pairing(m2)
            } catch {
                return .pairing(PairSetupAccessory.error(state: 2, .unknown))
            }
        case 3:
            guard var accessory = connection.pendingSetup, state.withLock({ $0.setupOwner == id }) else {
                return .pairing(PairSetupAccessory.error(state: 4, .unknown))
            }
            let m4 = accessory.m4(answering: tlv)
            if m4.byte(.error) != nil {
                state.withLock { s in
                    s.wrongCodes += 1
                    s.setupOwner = nil
                }
                connection.setup(nil)
                delegate.log("homekit: pair-setup refused (a wrong setup code)")
            } else {
                connection.setup(accessory)
            }
            return .pairing(m4)
        case 5:
            guard var accessory = connection.pendingSetup, state.withLock({ $0.setupOwner == id }) else {
                return .pairing(PairSetupAccessory.error(state: 6, .unknown))
            }
            defer {
                connection.setup(nil)
                state.withLock { $0.setupOwner = nil }
            }
            guard let m6 = try? accessory.m6(answering: tlv), let controller = accessory.controller else {
                return .pairing(PairSetupAccessory.error(state: 6, .authentication))
            }
            let pairing = HAPPairing(id: String(decoding: controller.id, as: UTF8.self), publicKey: controller.publicKey, isAdmin: true)
            let added = state.withLock { s -> HAPAccessoryIdentity? in
                guard !s.identity.isPaired else { return nil }
                s.identity.pairings = [pairing]
                s.generation += 1
                return s.identity
            }
            guard let added else { return .pairing(PairSetupAccessory.error(state: 6, .unavailable)) }
            do {
                try await store(added)
            } catch {
                state.withLock { $0.identity.pairings = [] }
                delegate.log("homekit: pairing not stored: \(PhotonError.wrap(error).message)")
                return .pairing(PairSetupAccessory.error(state: 6, .unknown))
            }
            delegate.log("homekit: paired with a controller (admin)")
            return .pairing(m6)
        default:
            return .pairing(PairSetupAccessory.error(state: step &+ 1, .unknown))
        }
    }

    func pairVerify(_ request: HAPRequest, on connection: HAPConnection) -> HAPResponse {
        guard let tlv = try? TLV8.decode(request.body), let step = tlv.byte(.state) else {
            return .pairing(PairSetupAccessory.error(state: 2, .unknown))
        }
        switch step {
        case 1:
            let identity = identity
            do {
                var verify = try PairVerifyAccessory(
                    accessoryID: Array(identity.deviceID.utf8), signingKey: try Ed25519PrivateKey(rawRepresentation: identity.signingKey),
                    knows: { [state] id in
                        let name = String(decoding: id, as: UTF8.self)
                        return state.withLock { $0.identity.pairings.first { $0.id == name }?.publicKey }
                    })
                let m2 = try verify.m2(answering: tlv)
                connection.verifying(verify)
                return .pairing(m2)
            } catch {
                return .pairing(PairSetupAccessory.error(state: 2, .unknown))
            }
        case 3:
            guard let verify = connection.pendingVerify, let (m4, verified) = try? verify.m4(answering: tlv) else {
                return .pairing(PairSetupAccessory.error(state: 4, .authentication))
            }
            connection.verifying(nil)
            guard let verified else {
                delegate.log("homekit: pair-verify refused (an unknown controller or a bad signature)")
                return .pairing(m4)
            }
            var answer = HAPResponse.pairing(m4)
            answer.effect = .startSession(controller: String(decoding: verified.controllerID, as: UTF8.self), sharedSecret: verified.sharedSecret)
            return answer
        default:
            return .pairing(PairSetupAccessory.error(state: step &+ 1, .unknown))
        }
    }

    // MARK: Pairings

    func pairings(_ request: HAPRequest, controller: String) async -> HAPResponse {
        guard let tlv = try? TLV8.decode(request.body), tlv.byte(.state) == 1, let method = tlv.byte(.method) else {
            return .pairing(PairSetupAccessory.error(state: 2, .unknown))
        }
        let isAdmin = state.withLock { $0.identity.pairings.first { $0.id == controller }?.isAdmin ?? false }
        guard isAdmin else { return .pairing(PairSetupAccessory.error(state: 2, .authentication)) }
        switch method {
        case 3:
            guard let id = tlv[.identifier].map({ String(decoding: $0, as: UTF8.self) }), !id.isEmpty, let key = tlv[.publicKey], key.count == 32,
                let permissions = tlv.byte(.permissions)
            else { return .pairing(PairSetupAccessory.error(state: 2, .unknown)) }
            let changed = state.withLock { s -> HAPAccessoryIdentity? in
                if let index = s.identity.pairings.firstIndex(where: { $0.id == id }) {
                    guard s.identity.pairings[index].publicKey == key else { return nil }
                    s.identity.pairings[index].isAdmin = permissions == 1
                } else {
                    guard s.identity.pairings.count < 16 else { return nil }
                    s.identity.pairings.append(HAPPairing(id: id, publicKey: key, isAdmin: permissions == 1))
                }
                s.generation += 1
                return s.identity
            }
            guard let changed, (try? await store(changed)) != nil else {
                return .pairing(PairSetupAccessory.error(state: 2, .unknown))
            }
            delegate.log("homekit: a controller added another (\(permissions == 1 ? "admin" : "user"))")
            return .pairing(TLV8([(.state, [2])]))
        case 4:
            guard let id = tlv[.identifier].map({ String(decoding: $0, as: UTF8.self) }) else {
                return .pairing(PairSetupAccessory.error(state: 2, .unknown))
            }
            let (changed, removed) = state.withLock { s -> (HAPAccessoryIdentity, [String]) in
                s.identity.pairings.removeAll { $0.id == id }
                s.generation += 1
                // Without an admin nobody could manage the rest: the accessory is unpaired.
                var removed = [id]
                if !s.identity.pairings.contains(where: \.isAdmin) {
                    removed += s.identity.pairings.map(\.id)
                    s.identity.pairings = []
                }
                return (s.identity, removed)
            }
            guard (try? await store(changed)) != nil else { return .pairing(PairSetupAccessory.error(state: 2, .unknown)) }
            delegate.log("homekit: a controller removed a pairing\(changed.isPaired ? "" : "; no admin is left, so the accessory is unpaired")")
            var answer = HAPResponse.pairing(TLV8([(.state, [2])]))
            answer.effect = .cut(removed)
            return answer
        case 5:
            var items: [(TLV8.Tag, [UInt8])] = [(.state, [2])]
            for (index, pairing) in identity.pairings.enumerated() {
                if index > 0 { items.append((.separator, [])) }
                items += [(.identifier, Array(pairing.id.utf8)), (.publicKey, pairing.publicKey), (.permissions, [pairing.isAdmin ? 1 : 0])]
            }
            return .pairing(TLV8(items))
        default:
            return .pairing(PairSetupAccessory.error(state: 2, .unknown))
        }
    }

    /// Removes controllers from outside (`photon homekit revoke`): their sessions end at once.
    public func revoke(_ ids: [String]) {
        for connection in state.withLock({ Array($0.connections.values) }) where connection.controllerID.map(ids.contains) == true {
            connection.cut()
        }
    }

    /// Stores a change the server made, marking the time it takes.
    private func store(_ identity: HAPAccessoryIdentity) async throws {
        defer { state.withLock { $0.generation += 1 } }
        try await delegate.store(identity)
    }

    /// Where the server's own changes stand: read it before reading the store, and give it
    /// to `adopt(_:since:)`.
    public var generation: Int { state.withLock { $0.generation } }

    /// Takes the identity as stored now (changed by `photon homekit revoke` or `reset`):
    /// the sessions of controllers no longer paired end; a new key or device id ends all.
    /// With `since`, a copy read while the server was changing (or storing) its own
    /// identity is stale and left for the next read.
    public func adopt(_ identity: HAPAccessoryIdentity, since generation: Int? = nil) {
        if let generation, generation != self.generation { return }
        let current = self.identity
        guard identity != current else { return }
        if identity.deviceID != current.deviceID || identity.signingKey != current.signingKey {
            return reset(to: identity)
        }
        state.withLock { $0.identity = identity }
        let paired = Set(identity.pairings.map(\.id))
        revoke(current.pairings.map(\.id).filter { !paired.contains($0) })
    }

    /// Replaces the identity (a reset): everyone's sessions end.
    public func reset(to identity: HAPAccessoryIdentity) {
        let all = state.withLock { s -> [HAPConnection] in
            s.identity = identity
            s.wrongCodes = 0
            return Array(s.connections.values)
        }
        for connection in all { connection.cut() }
    }
}
