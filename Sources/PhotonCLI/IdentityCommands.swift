import Foundation
import PhotonCore
import PhotonCrypto
import PhotonStore

/// `photon identity show|regenerate`: this installation's TLS client identity.
enum IdentityCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            ["identity", "show"], summary: "show this installation's client certificate (made on first use)",
            details: """
                Photon makes its own RSA-2048 key and self-signed certificate the first time it
                needs one; nothing is shipped in the package. TVs of brands that use client
                certificates remember it when you pair. The private key never leaves the secret store.
                """,
            examples: ["photon identity show", "photon identity show --json"],
            run: show),
        CommandSpec(
            ["identity", "regenerate"], summary: "replace the client certificate with a new one",
            details: """
                Makes a new key and certificate. TVs that remember the old certificate (see
                `photon list`) refuse this client until you pair them again (`photon pair`).
                """,
            examples: ["photon identity regenerate"],
            run: regenerate),
    ]

    static func describe(_ identity: StoredIdentity, context: CLIContext, created: Bool) throws -> (JSONValue, String) {
        let info = try identity.clientIdentity.certificateInfo()
        let createdText = ISO8601DateFormatter().string(from: identity.createdAt)
        let json = JSONValue.object([
            ("fingerprint", .string(info.fingerprint.description)),
            ("subject", .string(info.subject)),
            ("created", .string(createdText)),
            ("new", .bool(created)),
            ("store", .string(context.paths.secretsFile.path)),
        ])
        let text = """
            Client certificate\(created ? " (new)" : "")
              fingerprint  \(info.fingerprint)
              subject      \(info.subject)
              created      \(createdText)
              key          RSA-2048, stored in \(context.paths.secretsFile.path) (mode 600)
            """
        return (json, text)
    }

    static func show(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let existing = try await context.store.existingIdentity()
        let identity: StoredIdentity
        if let existing {
            identity = existing
        } else {
            context.log.debug("no client identity yet: generating RSA-2048")
            identity = try await context.store.clientIdentity()
        }
        let (json, text) = try describe(identity, context: context, created: existing == nil)
        context.emit(json, text: text)
        return 0
    }

    static func regenerate(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let identity = try await context.store.regenerateIdentity()
        let (json, text) = try describe(identity, context: context, created: true)
        context.emit(json, text: text)
        let affected = try await context.store.devices().devices.filter { device in
            context.registry.adapters.first { $0.id == device.brand }?.descriptor.pairing.usesClientIdentity == true
        }
        if !affected.isEmpty {
            context.note(
                "note: pair these TVs again (they know this installation by its certificate): "
                    + affected.map(\.nickname).joined(separator: ", "))
        }
        return 0
    }
}
