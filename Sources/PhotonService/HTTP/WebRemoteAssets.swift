/// The files of the web remote, by path, with the headers that keep the page to itself:
/// a Content-Security-Policy that loads nothing from elsewhere and lets no site frame it.
enum WebRemoteAssets {
    struct Asset: Sendable {
        let headers: [(String, String)]
        let body: [UInt8]
    }

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static func asset(at path: String) -> Asset? {
        switch path {
        case "/", "/index.html": return page
        case "/app.js": return script
        case "/app.css": return stylesheet
        default: return nil
        }
    }

    private static let page = Asset(
        headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", contentSecurityPolicy),
            // The microphone is for this page only (no frame of another site), and nothing else.
            ("Permissions-Policy", "microphone=(self), camera=(), geolocation=(), payment=(), usb=()"),
        ],
        body: Array(WebRemotePage.html.utf8))
    private static let script = Asset(
        headers: [("Content-Type", "text/javascript; charset=utf-8")], body: Array(WebRemoteScript.javascript.utf8))
    private static let stylesheet = Asset(headers: [("Content-Type", "text/css; charset=utf-8")], body: Array(WebRemotePage.css.utf8))
}
