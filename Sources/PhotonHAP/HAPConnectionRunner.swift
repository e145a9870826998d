import PhotonCore

/// Bytes waiting to be written to one connection, in order, bounded: pushing never
/// blocks (events come from the TV's updates), and a controller that stops reading until
/// `maximumBytes` pile up is disconnected.
final class HAPWriteQueue: Sendable {
    struct State {
        var chunks: [[UInt8]] = []
        var bytes = 0
        var waiter: CheckedContinuation<[[UInt8]]?, Never>?
        var closed = false
    }

    let state = Locked(State())
    let maximumBytes: Int

    init(maximumBytes: Int) { self.maximumBytes = maximumBytes }

    /// Queues bytes; false (and closed) when they do not fit.
    @discardableResult
    func push(_ chunk: [UInt8]) -> Bool {
        let (accepted, waiter, batch) = state.withLock { s -> (Bool, CheckedContinuation<[[UInt8]]?, Never>?, [[UInt8]]?) in
            guard !s.closed else { return (false, nil, nil) }
            guard s.bytes + chunk.count <= maximumBytes else {
                s.closed = true
                let waiter = s.waiter
                s.waiter = nil
                return (false, waiter, nil)
            }
            s.chunks.append(chunk)
            s.bytes += chunk.count
            guard let waiter = s.waiter else { return (true, nil, nil) }
            s.waiter = nil
            defer {
                s.chunks = []
                s.bytes = 0
            }
            return (true, waiter, s.chunks)
        }
        waiter?.resume(returning: batch)
        return accepted
    }

    /// Everything queued, waiting for something; nil once closed.
    func next() async -> [[UInt8]]? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> [[UInt8]]?? in
                if !s.chunks.isEmpty {
                    defer {
                        s.chunks = []
                        s.bytes = 0
                    }
                    return .some(s.chunks)
                }
                if s.closed { return .some(nil) }
                s.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<[[UInt8]]?, Never>? in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }
}

extension HAPAccessoryServer {
    /// Serves one accepted connection until either side closes it: reads feed the
    /// connection, one writer drains its queue. A connection that has not verified as a
    /// paired controller within `verifyWithin` is dropped (pairing included: a person
    /// typing the code has that long); a verified one may stay idle for `idleTimeout`
    /// (none by default: HomeKit controllers keep their sessions open). `ended` is called as
    /// soon as the connection is over, before its socket finishes closing.
    public func serve(
        _ stream: any ByteStream, idleTimeout: Duration? = nil, verifyWithin: Duration = .seconds(120), maximumQueuedBytes: Int = 1 << 20,
        ended: @Sendable () -> Void = {}
    ) async {
        let queue = HAPWriteQueue(maximumBytes: maximumQueuedBytes)
        let connection = connect(write: { queue.push($0) }, close: { queue.close() })
        let writer = Task {
            while let chunks = await queue.next() {
                do {
                    try await stream.write(chunks.flatMap { $0 }, timeout: .seconds(10))
                } catch {
                    break
                }
            }
            // The queue closed (a cut, an overflow) or a write failed: end the reads too.
            await stream.close()
        }
        let verifyBy = ContinuousClock.now + verifyWithin
        while true {
            do {
                var timeout = idleTimeout
                if connection.controllerID == nil {
                    let left = verifyBy - ContinuousClock.now
                    guard left > .zero else {
                        delegate.log("homekit: a connection that did not verify in time was closed")
                        break
                    }
                    timeout = left
                }
                let bytes = try await stream.read(maxLength: 4096, timeout: timeout)
                if bytes.isEmpty { break }
                try await connection.receive(bytes)
            } catch {
                if let error = error as? PhotonError, error.code != .connectionClosed {
                    delegate.log("homekit: a connection closed: \(error.message)")
                }
                break
            }
        }
        connection.closed()
        queue.close()
        ended()
        await writer.value
    }
}
