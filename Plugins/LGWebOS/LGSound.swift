import PhotonCore

/// Where an LG TV's audio goes: `com.webos.service.apiadapter/audio/getSoundOutput`
/// (subscribed, so a change on the TV is reported) and `changeSoundOutput {"output"}`, as
/// aiowebostv sends them. webOS has no call that lists the outputs: the list is webOS's
/// known ids, the one in use marked.
extension LGSession: SoundOutputSwitching {
    func soundOutputs() async throws -> [TVListItem] {
        try checkOpen()
        let current = LGSoundOutputs.current(try await request(LGSoundOutputs.getURI))
        var items = LGSoundOutputs.known.map { output in
            TVListItem(id: output.id, name: output.standard ?? output.id, active: output.id == current)
        }
        // An output this firmware has that Photon does not know of yet.
        if let current, !LGSoundOutputs.known.contains(where: { $0.id == current }) {
            items.append(TVListItem(id: current, name: current, active: true))
        }
        return items
    }

    func setSoundOutput(_ output: String) async throws {
        try checkOpen()
        _ = try await request(LGSoundOutputs.changeURI, .object([("output", .string(LGSoundOutputs.id(for: output)))]))
    }
}

/// webOS's sound output ids and Photon's standard names for them. Every field read here
/// came from the network.
public enum LGSoundOutputs {
    public static let getURI = "com.webos.service.apiadapter/audio/getSoundOutput"
    public static let changeURI = "com.webos.service.apiadapter/audio/changeSoundOutput"

    /// The ids webOS uses, with the standard name where one fits.
    public static let known: [(id: String, standard: String?)] = [
        ("tv_speaker", "speaker"), ("external_arc", "arc"), ("external_optical", "optical"), ("bt_soundbar", "bluetooth"),
        ("headphone", "headphone"), ("lineout", "lineout"), ("tv_external_speaker", nil), ("tv_speaker_headphone", nil),
        ("external_speaker", nil),
    ]

    /// The webOS id for a standard name; anything else is taken as the TV's own id.
    public static func id(for output: String) -> String {
        known.first { $0.standard == output.lowercased() }?.id ?? output
    }

    /// The standard name of a webOS id, or the id itself.
    public static func standardName(ofID id: String) -> String {
        known.first { $0.id == id }?.standard ?? id
    }

    /// The output in use in a `getSoundOutput` answer (or a `getVolume` one that carries it);
    /// nil for a missing, empty or unprintable one.
    public static func current(_ payload: JSONValue) -> String? {
        guard let id = (payload["soundOutput"] ?? payload["volumeStatus"]?["soundOutput"])?.stringValue, !id.isEmpty, id.utf8.count <= 64,
            id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        return id
    }
}
