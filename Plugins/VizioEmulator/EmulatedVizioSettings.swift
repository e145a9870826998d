import Foundation
import PhotonCore
import PhotonEmulatorSupport
import Vizio

/// The emulated SmartCast TV's calls that need the pairing's token: state, keys, settings
/// changed by HASHVAL, apps.
extension EmulatedVizio {
    func authorised(_ method: String, _ path: String, _ field: (String) -> JSONValue?) -> JSONValue {
        let items = { (values: [JSONValue]) in Self.answer("SUCCESS", [("ITEMS", .array(values))]) }
        switch (method, path) {
        case ("GET", "/state/device/power_mode"):
            return items([Self.item("power_mode", name: "Power Mode", value: .int(state.withLock { $0.standby } ? 0 : 1))])
        case ("GET", "/state_extended"):
            guard !configuration.legacy else { return Self.answer("URI_NOT_FOUND") }
            let s = state.withLock { ($0.standby, $0.input, $0.volume) }
            return items([
                Self.item("power_mode", name: "Power Mode", value: .int(s.0 ? 0 : 1)),
                Self.item("current_input", name: "Current Input", value: .string(s.1)), Self.item("volume", name: "Volume", value: .int(s.2)),
            ])
        case ("PUT", "/key_command/"):
            for key in (field("KEYLIST")?.arrayValue ?? []).prefix(16) {
                guard let codeset = VizioJSON.integer(VizioJSON.field(key, "CODESET")), let code = VizioJSON.integer(VizioJSON.field(key, "CODE"))
                else {
                    return Self.answer("INVALID_PARAMETER")
                }
                let action = VizioJSON.text(VizioJSON.field(key, "ACTION")) ?? "KEYPRESS"
                if action == "KEYPRESS" || action == "KEYDOWN" {
                    state.withLock { s in
                        switch (codeset, code) {
                        case (11, 0): s.standby = true
                        case (11, 1): s.standby = false
                        case (11, 2): s.standby.toggle()
                        case (5, 1): s.volume = min(100, s.volume + 1)
                        case (5, 0): s.volume = max(0, s.volume - 1)
                        case (5, 4): s.muted.toggle()
                        case (5, 3): s.muted = true
                        case (5, 2): s.muted = false
                        case (4, 15): s.app = nil
                        default: break
                        }
                    }
                }
                emit(EmulatorEvent("key", [("key", .string("\(codeset):\(code)")), ("action", .string(action))]))
            }
            return Self.answer()
        case ("GET", "/menu_native/dynamic/tv_settings/devices/name_input"):
            return items(
                Self.inputs.enumerated().map { n, input in
                    Self.item(
                        input.cname, name: input.name, type: "T_DEVICE_V1", value: .object([("NAME", .string(input.label)), ("METADATA", "")]),
                        hashval: 4000 + n)
                })
        case ("GET", "/menu_native/dynamic/tv_settings/devices/current_input"):
            let (input, hash) = state.withLock { ($0.input, $0.inputHash) }
            return items([Self.item("current_input", name: "Current Input", type: "T_STRING_V1", value: .string(input), hashval: hash)])
        case ("PUT", "/menu_native/dynamic/tv_settings/devices/current_input"):
            guard let name = VizioJSON.text(field("VALUE")), let target = Self.inputs.first(where: { $0.name.lowercased() == name.lowercased() })
            else {
                return Self.answer("INVALID_PARAMETER")
            }
            guard modify(field, hash: \.inputHash) else { return Self.answer("HASHVAL_ERROR") }
            state.withLock { s in
                s.input = target.name
                s.app = nil
            }
            emit(EmulatorEvent("input", [("input", .string(target.standard)), ("name", .string(target.name))]))
            return Self.answer()
        case ("GET", "/menu_native/dynamic/tv_settings/audio/volume"):
            let (volume, hash) = state.withLock { ($0.volume, $0.volumeHash) }
            return items([Self.item("volume", name: "Volume", type: "T_VALUE_ABS_V1", value: .int(volume), hashval: hash)])
        case ("PUT", "/menu_native/dynamic/tv_settings/audio/volume"):
            guard let level = VizioJSON.integer(field("VALUE")), (0...100).contains(level) else { return Self.answer("INVALID_PARAMETER") }
            guard modify(field, hash: \.volumeHash) else { return Self.answer("HASHVAL_ERROR") }
            state.withLock { $0.volume = level }
            emit(EmulatorEvent("volume", [("level", .int(level))]))
            return Self.answer()
        case ("GET", "/menu_native/dynamic/tv_settings/audio/mute"):
            return items([
                Self.item("mute", name: "Mute", type: "T_LIST_V1", value: .string(state.withLock { $0.muted } ? "On" : "Off"), hashval: 5000)
            ])
        case ("GET", "/menu_native/dynamic/tv_settings/picture/picture_mode"):
            let (mode, hash) = state.withLock { ($0.picture, $0.pictureHash) }
            return items([Self.item("picture_mode", name: "Picture Mode", type: "T_LIST_V1", value: .string(mode), hashval: hash)])
        case ("GET", "/menu_native/static/tv_settings/picture/picture_mode"):
            return items([
                .object([
                    ("CNAME", "picture_mode"), ("TYPE", "T_LIST_V1"), ("NAME", "Picture Mode"),
                    ("ELEMENTS", .array(Self.pictureModes.map { .string($0) })),
                ])
            ])
        case ("PUT", "/menu_native/dynamic/tv_settings/picture/picture_mode"):
            guard let mode = VizioJSON.text(field("VALUE")), Self.pictureModes.contains(mode) else { return Self.answer("INVALID_PARAMETER") }
            guard modify(field, hash: \.pictureHash) else { return Self.answer("HASHVAL_ERROR") }
            state.withLock { $0.picture = mode }
            emit(EmulatorEvent("picture", [("mode", .string(mode))]))
            return Self.answer()
        case ("GET", "/app/current"):
            guard let app = state.withLock({ $0.app }) else { return Self.answer("SUCCESS", [("ITEM", .object([("VALUE", .null)]))]) }
            return Self.answer(
                "SUCCESS",
                [
                    (
                        "ITEM",
                        .object([
                            (
                                "VALUE",
                                .object([
                                    ("APP_ID", .string(app.id)), ("NAME_SPACE", .int(app.space)),
                                    ("MESSAGE", app.message.map { .string($0) } ?? .null),
                                ])
                            )
                        ])
                    )
                ])
        case ("PUT", "/app/launch"):
            let value = field("VALUE")
            guard let space = VizioJSON.integer(VizioJSON.field(value, "NAME_SPACE")), let id = VizioJSON.text(VizioJSON.field(value, "APP_ID"))
            else {
                return Self.answer("INVALID_PARAMETER")
            }
            let normalised = "\(space == 4 ? 2 : space):\(id)"
            guard Self.apps.contains(normalised) else { return Self.answer("INVALID_PARAMETER") }
            state.withLock { $0.app = (space, id, VizioJSON.text(VizioJSON.field(value, "MESSAGE"))) }
            emit(EmulatorEvent("launch", [("app", .string("\(space):\(id)"))]))
            return Self.answer()
        default:
            return Self.answer("URI_NOT_FOUND")
        }
    }
}
