import PhotonCore

/// What an LG TV shows besides the picture: toasts (`system.notifications/createToast`),
/// and the picture switched off and on while sound and apps go on
/// (`com.webos.service.tvpower/power/turnOffScreen` / `turnOnScreen`, the "TV as a
/// monitor" users' call).
extension LGSession: Notifying, ScreenSwitching {
    func notify(_ message: String) async throws {
        try checkOpen()
        _ = try await request("system.notifications/createToast", .object([("message", .string(message))]))
    }

    func setScreen(on: Bool) async throws {
        try checkOpen()
        let uri = "com.webos.service.tvpower/power/" + (on ? "turnOnScreen" : "turnOffScreen")
        // Firmware without the call answers 404, which the channel reports as unsupported.
        _ = try await request(uri)
    }
}
