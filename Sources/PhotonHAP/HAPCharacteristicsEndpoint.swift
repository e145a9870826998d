import PhotonCore
import PhotonJSON

/// `GET /characteristics` and `PUT /characteristics`: reads with a status per item where
/// any fails (207), writes passed to the TV through the delegate, subscriptions kept per
/// connection, and the change sent as an event to every other subscriber.
extension HAPAccessoryServer {
    func read(_ request: HAPRequest, on connection: HAPConnection) -> HAPResponse {
        guard let ids = request.query("id"), !ids.isEmpty else { return Self.status(400, .invalidValue) }
        let flag = { (name: String) in request.query(name) == "1" || request.query(name) == "true" }
        let (meta, permissions, type, events) = (flag("meta"), flag("perms"), flag("type"), flag("ev"))
        let accessory = accessory
        var items: [JSONValue] = []
        var failed = false
        for id in ids.split(separator: ",") {
            let parts = id.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]) else { return Self.status(400, .invalidValue) }
            guard aid == accessory.aid, let characteristic = accessory.characteristic(iid) else {
                failed = true
                items.append(.object([("aid", .int(aid)), ("iid", .int(iid)), ("status", .int(HAPStatus.doesNotExist.rawValue))]))
                continue
            }
            guard characteristic.permissions.contains(.read) else {
                failed = true
                items.append(.object([("aid", .int(aid)), ("iid", .int(iid)), ("status", .int(HAPStatus.writeOnly.rawValue))]))
                continue
            }
            guard case .object(var fields) = characteristic.json(aid: aid, meta: meta, permissions: permissions, type: type) else { continue }
            if events { fields.append(("ev", .bool(connection.isSubscribed(to: iid)))) }
            items.append(.object(fields))
        }
        if failed {
            // A 207 carries a status on every item.
            items = items.map { item in
                guard case .object(let fields) = item, !fields.contains(where: { $0.0 == "status" }) else { return item }
                return .object(fields + [("status", .int(0))])
            }
        }
        return .json(failed ? 207 : 200, Array(JSONValue.object([("characteristics", .array(items))]).encoded.utf8))
    }

    func write(_ request: HAPRequest, on connection: HAPConnection, controller: String) async -> HAPResponse {
        guard let document = try? JSONValue.parse(request.body), let list = document["characteristics"]?.arrayValue else {
            return Self.status(400, .invalidValue)
        }
        var statuses: [(aid: Int, iid: Int, status: HAPStatus)] = []
        for item in list {
            guard let aid = item["aid"]?.intValue, let iid = item["iid"]?.intValue else { return Self.status(400, .invalidValue) }
            statuses.append((aid, iid, await write(item, aid: aid, iid: iid, on: connection, controller: controller)))
        }
        guard statuses.contains(where: { $0.status != .success }) else { return HAPResponse(status: 204) }
        let items = statuses.map { JSONValue.object([("aid", .int($0.aid)), ("iid", .int($0.iid)), ("status", .int($0.status.rawValue))]) }
        return .json(207, Array(JSONValue.object([("characteristics", .array(items))]).encoded.utf8))
    }

    /// One item of a write: a subscription change, a value, or both.
    private func write(_ item: JSONValue, aid: Int, iid: Int, on connection: HAPConnection, controller: String) async -> HAPStatus {
        guard aid == accessory.aid, let characteristic = accessory.characteristic(iid) else { return .doesNotExist }
        if let events = item["ev"] {
            guard let on = events.boolValue ?? events.intValue.flatMap({ $0 == 0 || $0 == 1 ? $0 == 1 : nil }) else { return .invalidValue }
            guard characteristic.permissions.contains(.events) else { return .notificationNotSupported }
            connection.subscribe(iid, on)
        }
        guard let raw = item["value"] else { return .success }
        guard characteristic.permissions.contains(.write) else { return .readOnly }
        guard let value = characteristic.accepting(raw) else { return .invalidValue }
        if let request = HAPTelevision.request(writing: value, to: iid) {
            let status = await delegate.perform(request, controller: controller)
            guard status == .success else { return status }
        } else {
            await delegate.remember(iid, value)
        }
        // Write-only characteristics (keys, steps) keep no value; the others now hold it.
        if characteristic.permissions.contains(.read) {
            changed(iid, to: value, except: connection)
            if characteristic.type == HAPTelevision.Types.targetVisibility {
                changed(iid - 1, to: value, except: nil)
            }
        }
        return .success
    }
}
