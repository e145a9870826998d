import Foundation
import PhotonCore
import PhotonCrypto

/// Polo pairing on the pairing port (protocol notes §5): the TV's certificate is put to
/// the user before anything is sent, then request, options, configuration, the code the
/// TV shows, and the secret. A mistyped code is caught by its check byte and asked for
/// again without spending the TV's attempt.
struct AndroidTVPairingFlow: PairingFlow {
    let pairingEndpoint: Endpoint
    let remotePort: UInt16
    let context: AdapterContext
    /// How often a locally rejected code may be retyped.
    let maximumCodeAttempts = 3

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let options = TLSClientOptions(identity: context.clientIdentity, trust: .captureForFirstUse)
        let log = context.log
        log.debug("pairing: connecting to \(pairingEndpoint)")
        let stream: any ByteStream
        do {
            stream = try await context.connector.openByteStream(
                to: pairingEndpoint, security: .tls(options), timeout: context.timeout)
        } catch let error as PhotonError where error.code == .unreachable {
            throw PhotonError(
                .unreachable, error.message,
                hint: "is this an Android TV / Google TV with the Android TV Remote Service? It pairs on port \(pairingEndpoint.port)")
        }
        let framed = FramedStream(stream)
        defer { Task { await framed.close() } }
        guard let tvCertificate = stream.peerCertificate, let serverModulus = tvCertificate.rsaModulus,
            let serverExponent = tvCertificate.rsaExponent
        else {
            throw PhotonError(
                .protocolViolation, "the TV's certificate has no RSA key, which Android TV pairing needs",
                hint: "this does not look like an Android TV Remote v2 service")
        }
        guard let local = stream.localCertificate, let clientModulus = local.rsaModulus,
            let clientExponent = local.rsaExponent
        else { throw PhotonError(.internal, "the client certificate was not presented") }

        // Consent first: nothing is sent to a TV the user has not trusted.
        try await responder.requireTrust(tvCertificate)

        func exchange(_ body: PoloMessage.Body, expecting step: String) async throws -> PoloMessage {
            try await framed.send(PoloMessage(body).encoded(), timeout: context.timeout)
            guard let bytes = try await framed.receive(timeout: context.timeout) else {
                throw PhotonError(
                    .pairingRefused, "the TV closed the pairing connection during \(step)",
                    hint: "pairing was cancelled on the TV or it went to sleep: run `photon pair` again")
            }
            let reply = try PoloMessage.decode(bytes)
            try Self.check(reply, during: step)
            log.debug("pairing: \(step) answered")
            return reply
        }

        let ack = try await exchange(.pairingRequest(serviceName: "atvremote", clientName: context.clientName), expecting: "the pairing request")
        guard case .pairingRequestAck = ack.body else { throw Self.unexpected(ack, during: "the pairing request") }
        let tvOptions = try await exchange(
            .options(inputEncodings: [.hexadecimal6], outputEncodings: [], preferredRole: .input), expecting: "options")
        guard case .options = tvOptions.body else { throw Self.unexpected(tvOptions, during: "options") }
        let configured = try await exchange(.configuration(encoding: .hexadecimal6, clientRole: .input), expecting: "configuration")
        guard case .configurationAck = configured.body else { throw Self.unexpected(configured, during: "configuration") }

        // The TV now shows the code.
        var secret: [UInt8]?
        var lastError: PhotonError?
        for _ in 0..<maximumCodeAttempts {
            guard case .code(let typed) = try await responder.answer(.enterCode(length: 6, alphabet: .hexadecimal)) else {
                throw PhotonError(.pairingRefused, "no pairing code was entered", hint: "type the code the TV shows")
            }
            do {
                secret = try PairingSecret.compute(
                    code: typed, clientModulus: clientModulus, clientExponent: clientExponent,
                    serverModulus: serverModulus, serverExponent: serverExponent)
                break
            } catch let error as PhotonError where error.code == .pairingRefused {
                lastError = error
                log.debug("pairing: code rejected locally (check byte)")
            }
        }
        guard let secret else { throw lastError ?? PhotonError(.pairingRefused, "no valid code was entered") }

        try await framed.send(PoloMessage(.secret(secret)).encoded(), timeout: context.timeout)
        guard let bytes = try await framed.receive(timeout: context.timeout) else {
            throw PhotonError(
                .pairingRefused, "the TV rejected the code (it closed the connection)",
                hint: "the TV shows a new code next time: run `photon pair` again")
        }
        let reply = try PoloMessage.decode(bytes)
        try Self.check(reply, during: "the secret")
        guard case .secretAck = reply.body else { throw Self.unexpected(reply, during: "the secret") }

        let identity = AndroidTVCertificateSubject.parse(commonName: tvCertificate.commonName, subject: tvCertificate.subject)
        let id =
            "androidtv-"
            + (identity.mac.map { $0.replacingOccurrences(of: ":", with: "").lowercased() }
                ?? String(tvCertificate.fingerprint.compactHex.prefix(12)))
        let device = DeviceRecord(
            id: id, nickname: id, brand: AndroidTVAdapter.brandID, host: pairingEndpoint.host, port: remotePort,
            ports: ["pairing": pairingEndpoint.port], name: identity.name, model: identity.name, mac: identity.mac,
            capabilities: AndroidTVAdapter.maximumCapabilities.sortedNames)
        return PairedTV(device: device, secrets: DeviceSecrets(pin: tvCertificate.fingerprint))
    }

    static func check(_ message: PoloMessage, during step: String) throws {
        switch message.status {
        case PoloMessage.Status.ok.rawValue: return
        case PoloMessage.Status.badSecret.rawValue:
            throw PhotonError(
                .pairingRefused, "the TV rejected the code, try again",
                hint: "run `photon pair` again and type the new code the TV shows")
        case PoloMessage.Status.badConfiguration.rawValue:
            throw PhotonError(
                .pairingRefused, "the TV refused the pairing configuration (status 401) during \(step)",
                hint: "this TV may need an update of its Android TV Remote Service")
        default:
            throw PhotonError(
                .pairingRefused, "the TV answered \(step) with status \(message.status)",
                hint: "run `photon pair` again; if it keeps failing, restart the TV")
        }
    }

    static func unexpected(_ message: PoloMessage, during step: String) -> PhotonError {
        PhotonError(.protocolViolation, "the TV sent an unexpected pairing message during \(step)")
    }
}
