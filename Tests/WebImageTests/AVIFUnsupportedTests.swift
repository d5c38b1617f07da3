import Foundation
import Testing
@testable import WebImageCodecs

/// An AVIF whose container breaks ISO 23008-12 in a way libavif 0.11 refuses is outside what is
/// supported, and the error says so (not "corrupt").
@Suite("AVIF outside support")
struct AVIFUnsupportedTests {
    /// The big-endian size and type of the box at `offset`.
    static func box(_ b: [UInt8], _ offset: Int) -> (size: Int, type: String) {
        let size = Int(b[offset]) << 24 | Int(b[offset + 1]) << 16 | Int(b[offset + 2]) << 8 | Int(b[offset + 3])
        return (size, String(decoding: b[offset + 4..<offset + 8], as: UTF8.self))
    }

    /// Offset of the child box of `type` inside the box at `parent` (children start `skip` bytes in).
    static func child(_ b: [UInt8], of parent: Int, skip: Int, type: String) -> Int? {
        var at = parent + skip
        let end = parent + box(b, parent).size
        while at + 8 <= end {
            let (size, name) = box(b, at)
            if name == type { return at }
            guard size >= 8 else { return nil }
            at += size
        }
        return nil
    }

    static func grow(_ b: inout [UInt8], boxAt offset: Int, by extra: Int) {
        let size = box(b, offset).size + extra
        b.replaceSubrange(offset..<offset + 4, with: [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
    }

    @Test func aSecondIpmaBoxIsRefusedAsUnsupported() throws {
        var b = [UInt8](try CodecFixtures.data("avif/still-8bit.avif"))
        var top = 0
        while top + 8 <= b.count, Self.box(b, top).type != "meta" { top += max(Self.box(b, top).size, 8) }
        let meta = top
        try #require(meta + 8 <= b.count)
        let iprp = try #require(Self.child(b, of: meta, skip: 12, type: "iprp"))
        let ipma = try #require(Self.child(b, of: iprp, skip: 8, type: "ipma"))
        // A second ipma of the same version and flags, listing no item (as some early writers
        // split their associations): ISO 23008-12 allows one.
        let copy: [UInt8] = [0, 0, 0, 16] + Array("ipma".utf8) + Array(b[ipma + 8..<ipma + 12]) + [0, 0, 0, 0]
        b.insert(contentsOf: copy, at: ipma + Self.box(b, ipma).size)
        Self.grow(&b, boxAt: iprp, by: copy.count)
        Self.grow(&b, boxAt: meta, by: copy.count)
        let error = try #require(throws: WebImageError.self) { try AVIFCoder().decode(Data(b), options: .default) }
        #expect(error.code == .unsupportedFormat, "\(error)")
        #expect(error.message.contains("ISO 23008-12") && error.message.contains("not supported"), "\(error)")
    }
}
