import AndroidTV
import AppleTV
import FireTV
import LGWebOS
import Philips
import PhotonCore
import Roku
import SamsungTV
import Sony
import Vizio

/// The brands built into Photon's tools: the one registration list of adapters. A brand
/// is its folders under Plugins/ plus one line here (and one in `BuiltInEmulators` for its
/// emulated TV); everything else — the command line, the daemon, the doors — reads this
/// list and names no brand. The production binaries link this list only, never an
/// emulated TV.
public enum BuiltInPlugins {
    /// Every built-in adapter, in the order help and listings show them.
    public static let adapterList: [any TVAdapter] = [
        AndroidTVAdapter(),
        SamsungTVAdapter(),
        RokuAdapter(),
        LGWebOSAdapter(),
        FireTVAdapter(),
        AppleTVAdapter(),
        SonyAdapter(),
        VizioAdapter(),
        PhilipsAdapter(),
    ]

    /// The adapters, for the CLI, the daemon and `PhotonKit`.
    public static var adapters: AdapterRegistry { AdapterRegistry(adapterList) }
}
