/// Bytes received but not yet parsed, for the incremental decoders (WebSocket frames,
/// varint-framed protobuf). Indices are relative to the first unconsumed byte; consumed
/// space is reclaimed without copying on every read.
public struct ByteQueue: Sendable {
    private var storage: [UInt8] = []
    private var start = 0

    public init() {}

    /// Bytes held and not yet consumed.
    public var count: Int { storage.count - start }

    public subscript(index: Int) -> UInt8 { storage[start + index] }

    /// A copy of bytes `range` (relative indices).
    public func bytes(_ range: Range<Int>) -> [UInt8] { Array(storage[(start + range.lowerBound)..<(start + range.upperBound)]) }

    public mutating func append(_ bytes: [UInt8]) {
        if start > 0 && start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 {
            storage.removeFirst(start)
            start = 0
        }
        storage += bytes
    }

    /// Drops the first `n` bytes.
    public mutating func consume(_ n: Int) {
        precondition(n <= count, "consuming more than is held")
        start += n
    }
}
