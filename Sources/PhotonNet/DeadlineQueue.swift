/// The event loop's timed waits, ordered by deadline, so finding the next deadline and the
/// expired waits costs O(log n) per wait instead of a scan of every socket on every wake.
/// A daemon holding thousands of idle sessions wakes a thousand times a second for pings;
/// a scan per wake made its idle cost grow with the square of the fleet.
///
/// Waits leave the queue in two ways: they expire (`popExpired`), or they end for another
/// reason (ready, cancelled, closed) and are `remove`d. Removal is lazy: the id is
/// forgotten at once and its heap slot is dropped when it reaches the top, and the heap is
/// rebuilt when stale slots outnumber live ones, so memory stays bounded by the live waits.
struct DeadlineQueue {
    /// A deadline as nanoseconds after `origin`: a plain integer, so the heap's moves are
    /// word copies.
    private struct Slot {
        var deadline: Int64
        var id: UInt64
    }

    private let origin = ContinuousClock.now
    private var heap: [Slot] = []
    /// Live waits: id → the descriptor it waits on and its deadline.
    private var live: [UInt64: (fd: Int32, deadline: Int64)] = [:]

    private func ticks(_ instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (instant - origin).components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    var count: Int { live.count }
    var isEmpty: Bool { live.isEmpty }

    mutating func insert(id: UInt64, fd: Int32, deadline: ContinuousClock.Instant) {
        let at = ticks(deadline)
        live[id] = (fd, at)
        heap.append(Slot(deadline: at, id: id))
        siftUp(heap.count - 1)
    }

    /// Forgets a wait that ended without expiring (no-op for an unknown id).
    mutating func remove(id: UInt64) {
        guard live.removeValue(forKey: id) != nil else { return }
        if heap.count > 64 && heap.count > 2 * live.count { rebuild() }
    }

    /// The earliest deadline of a live wait.
    mutating func earliest() -> ContinuousClock.Instant? {
        dropStaleTop()
        return heap.first.map { origin + .nanoseconds($0.deadline) }
    }

    /// Removes and returns every live wait whose deadline is at or before `now`.
    mutating func popExpired(at now: ContinuousClock.Instant) -> [(id: UInt64, fd: Int32)] {
        var expired: [(id: UInt64, fd: Int32)] = []
        let now = ticks(now)
        while true {
            dropStaleTop()
            guard let top = heap.first, top.deadline <= now else { return expired }
            popTop()
            if let wait = live.removeValue(forKey: top.id) { expired.append((top.id, wait.fd)) }
        }
    }

    /// Slots in the heap, live or stale (for tests of the memory bound).
    var storedSlots: Int { heap.count }

    private mutating func dropStaleTop() {
        while let top = heap.first, live[top.id]?.deadline != top.deadline { popTop() }
    }

    private mutating func rebuild() {
        heap = live.map { Slot(deadline: $0.value.deadline, id: $0.key) }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    /// Moves the slot at `start` up to its place, shifting parents down into the hole.
    private mutating func siftUp(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { heap in
            let moving = heap[start]
            var hole = start
            while hole > 0 {
                let parent = (hole - 1) / 2
                guard moving.deadline < heap[parent].deadline else { break }
                heap[hole] = heap[parent]
                hole = parent
            }
            heap[hole] = moving
        }
    }

    /// Moves the slot at `start` down to its place, shifting smaller children up.
    private mutating func siftDown(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { heap in
            let moving = heap[start]
            var hole = start
            while true {
                let left = 2 * hole + 1
                guard left < heap.count else { break }
                var smallest = left
                if left + 1 < heap.count && heap[left + 1].deadline < heap[left].deadline { smallest = left + 1 }
                guard heap[smallest].deadline < moving.deadline else { break }
                heap[hole] = heap[smallest]
                hole = smallest
            }
            heap[hole] = moving
        }
    }
}
