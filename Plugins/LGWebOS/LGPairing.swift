import PhotonCore

/// Pairing with an LG TV: TLS on the main port with consent to its certificate (or, for a
/// TV that offers no TLS, a plain connection with consent to that), then hello, system
/// information and the PROMPT registration. The client key, the TV's MACs for waking and
/// the choice of transport are what is stored.
struct LGPairingFlow: PairingFlow {
    let endpoint: Endpoint
    let plainPort: UInt16
    let context: AdapterContext
    let acceptTimeout: Duration

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let (channel, pin) = try await connect(responder: responder)
        // Closed before returning: nothing is left inside TLS when the command exits.
        let session = SSAPChannel(stream: channel, log: context.log)
        do {
            let paired = try await register(channel, session: session, pin: pin, responder: responder)
            await session.close()
            return paired
        } catch {
            await session.close()
            throw error
        }
    }

    private func register(_ channel: any MessageStream, session: SSAPChannel, pin: CertificateFingerprint?, responder: any PairingResponder)
        async throws
        -> PairedTV
    {
        let greeting = try await LGHandshake.greet(channel, timeout: context.timeout, log: context.log)
        if !greeting.hello.pairingTypes.isEmpty, !greeting.hello.pairingTypes.contains("PROMPT") {
            throw PhotonError.unsupported(
                "this LG TV pairs only by \(greeting.hello.pairingTypes.joined(separator: ", ")), and Photon pairs by accepting a prompt")
        }
        let acceptTimeout = acceptTimeout
        let note =
            pin == nil
            ? ""
            : "\nThe pinned certificate proves that the same certificate answers next time, not that this is your TV: LG TVs are reported to share one."
        let key = try await LGHandshake.register(
            channel, clientKey: nil, timeout: context.timeout, accept: acceptTimeout, log: context.log,
            prompted: {
                _ = try await responder.answer(
                    .confirmOnTV(message: "Accept \"Photon\" on the TV's screen (within \(Int(acceptTimeout.seconds)) s)…" + note))
            })
        // The MACs for Wake-on-LAN (wired and Wi-Fi: the TV wakes only on the one it uses).
        session.start { _ in }
        let macs = (try? await session.request("com.webos.service.connectionmanager/getinfo", timeout: context.timeout)).map(LGState.macs) ?? []
        let host = endpoint.host
        let idPart =
            greeting.hello.deviceUUID.flatMap(LGWebOSAdapter.deviceID(uuid:)).map { String($0.dropFirst(3)) }
            ?? macs.first.map { $0.replacingOccurrences(of: ":", with: "").lowercased() } ?? DeviceRecord.idPart(fromHost: host)
        var device = DeviceRecord(
            id: "lg-" + idPart, nickname: "lg-" + idPart, brand: LGWebOSAdapter.brandID, host: host,
            port: pin == nil ? plainPort : endpoint.port,
            ports: ["wss": pin == nil ? 3001 : endpoint.port, "ws": plainPort],
            name: "LG \(greeting.modelName ?? "webOS TV")", model: LGWebOSAdapter.model(greeting), mac: macs.first,
            capabilities: LGWebOSAdapter.maximumCapabilities.sortedNames)
        device.otherMACs = macs.count > 1 ? Array(macs.dropFirst()) : nil
        if pin == nil { device.unencrypted = true }
        return PairedTV(device: device, secrets: DeviceSecrets(pin: pin, values: [LGWebOSAdapter.clientKeySecret: key]))
    }

    /// The main socket: TLS with consent to the certificate; plain only when the TV
    /// offers no TLS (or the plain port was asked for) and the user consents.
    private func connect(responder: any PairingResponder) async throws -> (any MessageStream, CertificateFingerprint?) {
        let plain = Endpoint(host: endpoint.host, port: plainPort)
        if endpoint.port != plainPort {
            let stream: any ByteStream
            do {
                stream = try await context.connector.openByteStream(
                    to: endpoint, security: .tls(TLSClientOptions(trust: .captureForFirstUse)), timeout: context.timeout)
            } catch let error as PhotonError where error.code == .unreachable || error.code == .tls {
                // An old TV has no TLS port: offer plain only if its plain port answers.
                guard let probe = try? await context.connector.openByteStream(to: plain, security: .plain, timeout: context.timeout) else {
                    throw error
                }
                await probe.close()
                return (
                    try await plainStream(
                        plain, responder: responder,
                        reason:
                            "The TV does not answer TLS on \(endpoint) (\(error.message)), but its plain WebSocket port \(plainPort) is open: a webOS TV from before 2018?"
                    ), nil
                )
            }
            let pin = try await responder.requireTrust(in: stream)
            do {
                let channel = try await context.connector.upgradeToMessageStream(
                    stream, request: LGWebOSAdapter.mainSocket(endpoint, security: .plain), timeout: context.timeout)
                return (channel, pin)
            } catch {
                await stream.close()
                throw error
            }
        }
        return (
            try await plainStream(plain, responder: responder, reason: "\(plain) is the TV's plain WebSocket port: nothing there is encrypted."), nil
        )
    }

    private func plainStream(_ plain: Endpoint, responder: any PairingResponder, reason: String) async throws -> any MessageStream {
        guard case .trust(true) = try await responder.answer(.allowUnencrypted(reason: reason)) else {
            throw PhotonError(
                .untrustedCertificate, "not pairing over an unencrypted connection without consent; nothing was sent",
                hint: "if this TV is too old for TLS, run again with --allow-unencrypted (anyone on the network can then read its key)")
        }
        return try await context.connector.openMessageStream(LGWebOSAdapter.mainSocket(plain, security: .plain), timeout: context.timeout)
    }
}
