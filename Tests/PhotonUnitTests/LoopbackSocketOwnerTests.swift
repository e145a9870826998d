import PhotonNet
import Testing

/// Reading the kernel's socket table for the user behind a loopback connection (the HTTP
/// door counts wrong pairing codes per local user).
@Suite struct LoopbackSocketOwnerTests {
    static let table = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 654139 1 0000000076186f49 100 0 0 10 0
           1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 654140 1 0000000076186f49 20 4 30 10 -1
           2: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 654141 1 0000000076186f49 20 4 30 10 -1
        """

    @Test func theClientRowNamesItsUser() {
        // The client socket (local port 0xD431, connected to 0x1F90 = 8080) belongs to 1001;
        // the server's accepted socket (the reverse row) to the daemon's user, 1000.
        #expect(LoopbackSocketOwner.owner(in: Self.table, clientPort: 0xD431, serverPort: 8080) == 1001)
        #expect(LoopbackSocketOwner.owner(in: Self.table, clientPort: 8080, serverPort: 0xD431) == 1000)
    }

    @Test func noRowOrABrokenRowIsNil() {
        #expect(LoopbackSocketOwner.owner(in: Self.table, clientPort: 1, serverPort: 8080) == nil)
        #expect(LoopbackSocketOwner.owner(in: "", clientPort: 1, serverPort: 8080) == nil)
        #expect(LoopbackSocketOwner.owner(in: "header\n 0: 0100007F:0001 0100007F:1F90 01", clientPort: 1, serverPort: 8080) == nil)
        #expect(LoopbackSocketOwner.owner(in: "header\n 0: 0100007F:0001 0100007F:1F90 01 a b c notanumber", clientPort: 1, serverPort: 8080) == nil)
    }
}
