import Foundation
import Testing
@testable import WebImageCodecs

/// Decoding the same AVIF, HEIF and JPEG XL files over and over holds resident memory flat, so a
/// real leak could not hide among the process-lifetime statics LeakSanitizer is told to accept
/// (Tests/lsan-suppressions.txt). CI runs 3,000 decodes; `make stress` (WEBIMAGE_STRESS=full)
/// runs 100,000 and prints the resident memory after the warm-up and at the end.
@Suite("Decode leak loop", .serialized)
struct DecodeLeakLoopTests {
    static let full = ProcessInfo.processInfo.environment["WEBIMAGE_STRESS"] == "full"

    @Test func residentMemoryStaysFlatOverRepeatedDecodes() throws {
        // nclx-tagged AVIF and HEIF (the nclx profile table) and an ICC-tagged one; lossy JPEG XL.
        let files = try ["avif/p3-nclx.avif", "heif/p3-nclx.heic", "avif/p3-icc.avif", "jxl/still-lossy.jxl", "jxl/alpha.jxl"]
            .map { try CodecFixtures.data($0) }
        let total = Self.full ? 100_000 : 3_000
        let warmUp = total / 10
        var afterWarmUp = 0
        for index in 0..<total {
            _ = try CodersManager.shared.decode(files[index % files.count], options: .default)
            if index == warmUp { afterWarmUp = ProcessMemory.residentBytes() }
        }
        let end = ProcessMemory.residentBytes()
        let growth = end - afterWarmUp
        if Self.full {
            print("decode leak loop: \(total) decodes, RSS \(afterWarmUp >> 20) MB after \(warmUp), \(end >> 20) MB at the end")
        }
        // Allocator noise stays within a few megabytes; over the full run a leak of 100 bytes a
        // decode would pass 8 MB (CI's short run catches only leaks of kilobytes a decode).
        #expect(growth < 8 << 20, "RSS grew \(growth >> 10) KB over \(total - warmUp) decodes")
    }
}
