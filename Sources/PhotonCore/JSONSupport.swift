// JSONValue and its strict parser live in PhotonJSON (standard library only, so the small
// `photon` front end can use them without Foundation); every Photon module sees them
// through PhotonCore.
@_exported import PhotonCatalog
@_exported import PhotonJSON

extension PhotonError {
    /// A JSON text another process sent that could not be read.
    public init(_ error: JSONParseError) {
        self.init(.protocolViolation, error.description, hint: "send one JSON object per line")
    }
}
