import PhotonCore

/// Control Center's keys (HAP's RemoteKey values), their names for `photon homekit remap`,
/// and the Photon key each sends unless a TV's remap says otherwise.
public enum HomeKitRemoteKeys {
    public static let all: [(value: Int, name: String, key: RemoteKey)] = [
        (0, "rewind", .rewind), (1, "fast-forward", .fastForward), (2, "next", .next), (3, "previous", .previous), (4, "up", .up),
        (5, "down", .down), (6, "left", .left), (7, "right", .right), (8, "select", .select), (9, "back", .back), (10, "exit", .home),
        (11, "play-pause", .playPause), (15, "information", .info),
    ]

    /// The keys as a TV sends them: the defaults with its remap.
    public static func keyMap(remap: [String: String]) -> [Int: RemoteKey] {
        var map: [Int: RemoteKey] = [:]
        for entry in all { map[entry.value] = remap[entry.name].flatMap(RemoteKey.init(rawValue:)) ?? entry.key }
        return map
    }
}
