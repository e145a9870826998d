import Glibc

/// A per-thread buffer that socket and TLS reads fill before copying out exactly what
/// arrived. A read asks for up to tens of KiB but usually gets a few dozen bytes (a ping,
/// a key echo); allocating the whole capacity per read made the allocator a tenth of an
/// idle fleet's cost. The buffer is only used between a read call and its copy, never
/// across a suspension, so one per thread is enough.
enum ReadScratch {
    static let capacity = 64 * 1024

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// Calls `body` with this thread's buffer, at most `maxLength` bytes of it; `body`
    /// returns how many bytes it filled (negative or zero: none), and those are copied out.
    static func read(maxLength: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int) -> [UInt8] {
        var pointer = pthread_getspecific(key)
        if pointer == nil {
            pointer = malloc(capacity)
            pthread_setspecific(key, pointer)
        }
        let buffer = UnsafeMutableRawBufferPointer(start: pointer, count: min(max(1, maxLength), capacity))
        let filled = body(buffer)
        guard filled > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(rebasing: buffer[..<filled]))
    }
}
