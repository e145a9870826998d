import CPhotonVersion

/// Photon's version. It is written in one place, the VERSION file at the top of the tree,
/// which is compiled in: `photon --version`, the man pages and the Debian package
/// (`make deb`) all say the same.
public enum PhotonVersion {
    public static let current: String = {
        let text = String(cString: photon_version_text())
        return String(text.prefix { !$0.isWhitespace })
    }()
}
