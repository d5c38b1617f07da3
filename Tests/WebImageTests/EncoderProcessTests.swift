import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
#if canImport(Glibc)
import Glibc
#endif

/// AVIF encodes in a child `webimage encode-worker`: the same bytes as an encode in this process,
/// the child killed and reaped when the work is cancelled, and every failure of the child a clear
/// error.
@Suite("Encoder process")
struct EncoderProcessTests {
    private func worker(minimumPixels: Int = 0) throws -> EncoderProcess {
        let executable = try #require(webimageExecutable(), "build the webimage executable first")
        return EncoderProcess(executable: executable.path, minimumPixels: minimumPixels)
    }

    @Test func aChildEncodesTheSameBytesAsThisProcess() throws {
        let bitmap = TestBitmaps.gradient(width: 96, height: 64)
        let process = try worker()
        for lossless in [false, true] {
            let here = try AVIFEncoder.encodeHere(bitmap, quality: 0.6, lossless: lossless)
            let there = try AVIFEncoder.encode(bitmap, quality: 0.6, lossless: lossless, process: process)
            #expect(there == here)
        }
        var options = EncodeOptions(compressionQuality: 0.6)
        options.encoderProcess = process
        let encoded = try AVIFCoder().encode(Image(bitmap: bitmap), as: .avif, options: options)
        #expect(try AVIFCoder().decode(encoded, options: .default).bitmap.size == bitmap.size)
    }

    @Test func imagesBelowTheMinimumStayInThisProcess() throws {
        let bitmap = TestBitmaps.gradient(width: 8, height: 8)
        let missing = EncoderProcess(executable: "/nonexistent/webimage", minimumPixels: 65)
        #expect(try AVIFEncoder.encode(bitmap, quality: 0.5, lossless: false, process: missing)
                == AVIFEncoder.encodeHere(bitmap, quality: 0.5, lossless: false))
        #expect(throws: WebImageError.self) {
            _ = try AVIFEncoder.encode(bitmap, quality: 0.5, lossless: false,
                                       process: EncoderProcess(executable: "/nonexistent/webimage", minimumPixels: 64))
        }
    }

    @Test func cancellingTheWorkKillsAndReapsTheChild() throws {
        let bitmap = TestBitmaps.gradient(width: 1500, height: 1500)
        let run = EncoderProcessRun(process: try worker(),
                                    arguments: EncoderProcess.avifArguments(bitmap, quality: 0.5, lossless: false),
                                    maxOutput: 1 << 30)
        let cancellation = WorkCancellation()
        var child: pid_t = 0
        var inner: WebImageError.Code?
        #expect(throws: WebImageError.self) {
            try cancellation.run {
                do {
                    _ = try bitmap.pixels.withUnsafeBytes { pixels in
                        try run.run(input: pixels) { pid in
                            child = pid
                            cancellation.cancel()
                        }
                    }
                } catch let error as WebImageError {
                    inner = error.code
                    throw error
                }
            }
        }
        #expect(inner == .cancelled)
        let pid = child
        #expect(pid > 0)
        // Reaped: the pid is no child of this process any more.
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD)
    }

    @Test func aFailingChildIsAClearError() throws {
        let process = try worker()
        let input = [UInt8](repeating: 0, count: 16)
        func failure(_ arguments: [String], maxOutput: Int = 1 << 20) -> String? {
            let run = EncoderProcessRun(process: process, arguments: arguments, maxOutput: maxOutput)
            do {
                _ = try input.withUnsafeBytes { try run.run(input: $0) }
                return nil
            } catch let error as WebImageError {
                return error.code == .encodingFailed ? error.message : "code \(error.code)"
            } catch {
                return "\(error)"
            }
        }
        // Refused arguments, and pixels that end early: status 1 with the worker's own line.
        let refused = failure([EncoderProcess.workerCommand, "avif", "0", "70000", "2", "x"])
        #expect(refused?.contains("status 1") == true && refused?.contains("usage") == true, "\(refused ?? "")")
        #expect(failure([EncoderProcess.workerCommand, "avif", "2", "2", "0.5", "0"]) == nil)
        let truncated = failure([EncoderProcess.workerCommand, "avif", "8", "8", "0.5", "0"])
        #expect(truncated?.contains("ended after 16 of 256 bytes") == true, "\(truncated ?? "")")
        // More output than allowed.
        let flood = failure([EncoderProcess.workerCommand, "avif", "2", "2", "0.5", "0"], maxOutput: 10)
        #expect(flood?.contains("more than 10 bytes") == true, "\(flood ?? "")")
    }
}
