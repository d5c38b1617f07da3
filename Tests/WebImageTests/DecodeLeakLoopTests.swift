import Foundation
import Testing
@testable import WebImageCodecs

/// Decoding the same AVIF, HEIF and JPEG XL files over and over holds resident memory flat, so a
/// real leak could not hide among the process-lifetime statics LeakSanitizer is told to accept
/// (Tests/lsan-suppressions.txt). It runs in `make stress` (WEBIMAGE_STRESS=full): 100,000 decodes,
/// the resident memory printed after the warm-up and at the end. Not in `make test`: the process's
/// resident set there moves with every suite running beside it, and the loop would hold a thread
/// of the cooperative pool for a minute.
@Suite("Decode leak loop", .serialized, .enabled(if: ProcessInfo.processInfo.environment["WEBIMAGE_STRESS"] == "full", "runs in make stress (WEBIMAGE_STRESS=full)"))
struct DecodeLeakLoopTests {
    @Test func residentMemoryStaysFlatOverRepeatedDecodes() throws {
        // nclx-tagged AVIF and HEIF (the nclx profile table) and an ICC-tagged one; lossy JPEG XL.
        let files = try ["avif/p3-nclx.avif", "heif/p3-nclx.heic", "avif/p3-icc.avif", "jxl/still-lossy.jxl", "jxl/alpha.jxl"]
            .map { try CodecFixtures.data($0) }
        let total = 100_000
        let warmUp = total / 10
        var afterWarmUp = 0
        for index in 0..<total {
            _ = try CodersManager.shared.decode(files[index % files.count], options: .default)
            if index == warmUp { afterWarmUp = ProcessMemory.residentBytes() }
        }
        let end = ProcessMemory.residentBytes()
        let growth = end - afterWarmUp
        print("decode leak loop: \(total) decodes, RSS \(afterWarmUp >> 20) MB after \(warmUp), \(end >> 20) MB at the end")
        // Allocator noise stays within a few megabytes; a leak of 100 bytes a decode would pass 8 MB.
        #expect(growth < 8 << 20, "RSS grew \(growth >> 10) KB over \(total - warmUp) decodes")
    }
}
