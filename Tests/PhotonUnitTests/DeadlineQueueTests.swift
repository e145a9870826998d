import Foundation
import Testing

@testable import PhotonNet

@Suite struct DeadlineQueueTests {
    let base = ContinuousClock.now

    @Test func expiresInDeadlineOrderAndOnlyWhatIsDue() {
        var queue = DeadlineQueue()
        let offsets = [70, 10, 50, 30, 90, 20, 80, 40, 60, 0]
        for (index, offset) in offsets.enumerated() {
            queue.insert(id: UInt64(index), fd: Int32(100 + index), deadline: base + .milliseconds(offset))
        }
        #expect(queue.earliest() == base)
        let due = queue.popExpired(at: base + .milliseconds(45))
        #expect(due.map(\.id) == [9, 1, 5, 3, 7])
        #expect(due.map(\.fd) == [109, 101, 105, 103, 107])
        #expect(queue.count == 5)
        #expect(queue.earliest() == base + .milliseconds(50))
        #expect(queue.popExpired(at: base + .milliseconds(49)).isEmpty)
    }

    @Test func aRemovedWaitNeverExpiresNorSetsTheNextDeadline() {
        var queue = DeadlineQueue()
        queue.insert(id: 1, fd: 5, deadline: base + .milliseconds(10))
        queue.insert(id: 2, fd: 6, deadline: base + .milliseconds(20))
        queue.remove(id: 1)
        queue.remove(id: 99)
        #expect(queue.earliest() == base + .milliseconds(20))
        #expect(queue.popExpired(at: base + .seconds(1)).map(\.id) == [2])
        #expect(queue.isEmpty)
        #expect(queue.earliest() == nil)
    }

    @Test func staleSlotsAreReclaimedSoMemoryFollowsTheLiveWaits() {
        var queue = DeadlineQueue()
        // Waits that end by readiness, as on a busy daemon, long before their deadlines.
        for id in 0..<100_000 {
            queue.insert(id: UInt64(id), fd: 7, deadline: base + .seconds(10) + .microseconds(id))
            if id >= 10 { queue.remove(id: UInt64(id - 10)) }
        }
        #expect(queue.count == 10)
        #expect(queue.storedSlots <= 2 * 64 + 2)
        #expect(queue.popExpired(at: base + .seconds(11)).map(\.id) == (99_990..<100_000).map(UInt64.init))
    }
}
