import AppleTV
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport

/// The emulated Apple TV's answers once a client is verified: the session requests, HID
/// buttons, media controls and volume, apps, attention state, and the text-input session
/// (RTI archives in `_tiStart` replies and `_tiC` events), with the events tvOS pushes to
/// clients that registered interest (`SystemStatus`, `_iMC`).
extension EmulatedAppleTV {
    static let buttons: [Int64: String] = [
        1: "Up", 2: "Down", 3: "Left", 4: "Right", 5: "Menu", 6: "Select", 7: "Home", 8: "VolumeUp", 9: "VolumeDown", 10: "Siri",
        11: "Screensaver", 12: "Sleep", 13: "Wake", 14: "PlayPause", 15: "ChannelIncrement", 16: "ChannelDecrement", 17: "Guide",
        18: "PageUp", 19: "PageDown",
    ]
    static let mediaControls: [Int64: String] = [1: "Play", 2: "Pause", 3: "NextTrack", 4: "PreviousTrack"]
    /// Play, pause, next, previous; volume (0x100) when it controls one.
    var mediaFlags: Int64 { 0x0F | (state.withLock { $0.volumeControl } ? 0x100 : 0) }

    /// The frames answering one message: a reply to a request, and the events it causes.
    func request(_ message: OPACK, session: Session) throws -> [CompanionFrame] {
        guard let name = message["_i"]?.stringValue else { return [] }
        let content = message["_c"] ?? .object([])
        if message["_t"]?.intValue == CompanionConnection.MessageType.event.rawValue {
            return self.event(name, content, session: session)
        }
        guard let xid = message["_x"] else { return [] }
        switch configuration.misbehaviour {
        case .silent: return []
        case .garbage: return [CompanionFrame(.encryptedOPACK, [0xF0, 0xF1, 0xF2])]
        default: break
        }
        var answer: OPACK = .object([])
        var failure: String?
        var pushed: [CompanionFrame] = []
        switch name {
        case "_systemInfo": answer = .object([("_n", .string(configuration.name)), ("_mdl", .string(configuration.model))])
        case "_sessionStart": answer = .object([("_sid", .int(Int64.random(in: 1...0xFFFF_FFFF)))])
        case "_sessionStop", "_touchStart", "_touchStop", "TVRCSessionStart": break
        case "_tiStart": answer = startTextInput(session)
        case "_tiStop": session.textSession = nil
        case "_hidC":
            guard let code = content["_hidC"]?.intValue, let state = content["_hBtS"]?.intValue else {
                failure = "bad _hidC"
                break
            }
            guard let button = Self.buttons[code] else {
                failure = "unknown button \(code)"
                break
            }
            // A press is the button's release; its press down is reported apart.
            if state == 1 {
                emit(EmulatorEvent("key_down", [("key", .string(button)), ("code", .int(Int(code)))]))
            } else {
                emit(EmulatorEvent("key", [("key", .string(button)), ("code", .int(Int(code)))]))
                if code == 12 { setPower(1) }
                if code == 13 { setPower(3) }
            }
        case "_launchApp":
            if let bundle = content["_bundleID"]?.stringValue {
                guard Self.apps.contains(where: { $0.0 == bundle }) else {
                    failure = "no such app"
                    break
                }
                self.state.withLock { $0.foreground = bundle }
                emit(EmulatorEvent("launch", [("app", .string(bundle))]))
            } else if let url = content["_urlS"]?.stringValue {
                emit(EmulatorEvent("launch", [("url", .string(url))]))
            } else {
                failure = "nothing to launch"
            }
        case "FetchLaunchableApplicationsEvent": answer = .object(Self.apps.map { ($0.0, .string($0.1)) })
        case "FetchAttentionState": answer = .object([("state", .int(self.state.withLock { $0.attention }))])
        case "_mcc":
            (answer, failure, pushed) = mediaControl(content, session: session)
        default: failure = "unknown request \(name)"
        }
        var fields: [(String, OPACK)] = [("_t", .int(CompanionConnection.MessageType.response.rawValue)), ("_x", xid)]
        if let failure { fields.append(("_em", .string(failure))) } else { fields.append(("_c", answer)) }
        return [CompanionFrame(.encryptedOPACK, OPACK.object(fields).encoded)] + pushed
    }

    /// Events from the client: interest in events (answered with the current media
    /// controls when `_iMC` is among them) and text operations.
    private func event(_ name: String, _ content: OPACK, session: Session) -> [CompanionFrame] {
        switch name {
        case "_interest":
            let added = (content["_regEvents"]?.arrayValue ?? []).compactMap(\.stringValue)
            for event in (content["_deregEvents"]?.arrayValue ?? []).compactMap(\.stringValue) { session.interests.remove(event) }
            session.interests.formUnion(added)
            return added.contains("_iMC") ? [push("_iMC", .object([("_mcF", .int(mediaFlags))]))] : []
        case "_tiC":
            applyText(content, session: session)
            return []
        default: return []
        }
    }

    private func mediaControl(_ content: OPACK, session: Session) -> (OPACK, String?, [CompanionFrame]) {
        guard let code = content["_mcc"]?.intValue else { return (.object([]), "bad _mcc", []) }
        if let control = Self.mediaControls[code] {
            emit(EmulatorEvent("key", [("key", .string(control)), ("code", .int(Int(code)))]))
            return (.object([]), nil, [])
        }
        guard code == 5 || code == 6 else { return (.object([]), "unknown media control \(code)", []) }
        guard state.withLock({ $0.volumeControl }) else { return (.object([]), "no volume control", []) }
        if code == 5 { return (.object([("_vol", .double(state.withLock { $0.volume }))]), nil, []) }
        guard let volume = content["_vol"]?.doubleValue, volume.isFinite, (0...1).contains(volume) else {
            return (.object([]), "bad _vol", [])
        }
        state.withLock { $0.volume = volume }
        emit(EmulatorEvent("volume", [("level", .int(Int((volume * 100).rounded())))]))
        // As tvOS does, the change is announced through the media-control flags.
        let event = session.interests.contains("_iMC") ? [push("_iMC", .object([("_mcF", .int(mediaFlags))]))] : []
        return (.object([]), nil, event)
    }

    /// A new text-input session on the open field: its UUID and text in an RTI archive;
    /// nothing when no field is open (as tvOS answers with the keyboard down).
    private func startTextInput(_ session: Session) -> OPACK {
        guard let text = state.withLock({ $0.textField }) else {
            session.textSession = nil
            return .object([])
        }
        let uuid = (try? SecureRandom.bytes(16)) ?? Array(repeating: 0x42, count: 16)
        session.textSession = uuid
        return .object([("_tiD", .data(RemoteTextInput.sessionStarted(session: uuid, text: text)))])
    }

    private func applyText(_ content: OPACK, session: Session) {
        guard let archive = content["_tiD"]?.dataValue else {
            emit(EmulatorEvent("text_refused", [("reason", .string("no _tiD"))]))
            return
        }
        let operation: RemoteTextInput.Operation
        do {
            operation = try RemoteTextInput.operation(in: archive)
        } catch {
            emit(EmulatorEvent("text_refused", [("reason", .string(PhotonError.wrap(error).message))]))
            return
        }
        switch operation {
        case .insert(let text, let uuid) where uuid == session.textSession && state.withLock({ $0.textField != nil }):
            let field = state.withLock { s -> String in
                s.textField = (s.textField ?? "") + text
                return s.textField ?? ""
            }
            emit(EmulatorEvent("text", [("text", .string(text)), ("field", .string(field))]))
        case .clear(let uuid) where uuid == session.textSession && state.withLock({ $0.textField != nil }):
            state.withLock { $0.textField = "" }
            emit(EmulatorEvent("text_cleared"))
        default:
            emit(EmulatorEvent("text_refused", [("reason", .string("not the open text-input session"))]))
        }
    }

    private func push(_ name: String, _ content: OPACK) -> CompanionFrame {
        let event = OPACK.object([("_i", .string(name)), ("_t", .int(CompanionConnection.MessageType.event.rawValue)), ("_c", content)])
        return CompanionFrame(.encryptedOPACK, event.encoded)
    }

    func setPower(_ attention: Int64) {
        state.withLock { $0.attention = attention }
        emit(EmulatorEvent("power", [("state", .string(attention == 1 ? "asleep" : "awake"))]))
    }
}
