#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension EncoderProcess {
    /// The largest side a worker accepts, and the most pixels (the AVIF encoder's own bounds).
    static let maxSide = 65_535
    static let maxPixels = 1 << 28

    /// The arguments a worker is started with for an AVIF encode of `bitmap`.
    static func avifArguments(_ bitmap: Bitmap, quality: Double, lossless: Bool) -> [String] {
        [workerCommand, "avif", String(bitmap.width), String(bitmap.height), String(quality), lossless ? "1" : "0"]
    }

    /// The worker's side: reads `width × height` RGBA pixels from standard input, encodes them as
    /// `arguments` say (`avif WIDTH HEIGHT QUALITY LOSSLESS`, quality 0…1, lossless 0 or 1) and
    /// writes the encoded bytes to standard output. Returns the exit status: 0, or 1 after a line
    /// on standard error saying what failed.
    public static func runWorker(_ arguments: [String]) -> Int32 {
        do {
            guard arguments.count == 5, arguments[0] == "avif",
                  let width = Int(arguments[1]), let height = Int(arguments[2]),
                  (1...maxSide).contains(width), (1...maxSide).contains(height), width * height <= maxPixels,
                  let quality = Double(arguments[3]), (0...1).contains(quality),
                  let lossless = ["0": false, "1": true][arguments[4]] else {
                throw WebImageError(.encodingFailed, "usage: \(workerCommand) avif WIDTH HEIGHT QUALITY(0…1) LOSSLESS(0|1)")
            }
            let pixels = try readExactly(width * height * 4)
            let bitmap = Bitmap(width: width, height: height, pixels: pixels)
            let encoded = try AVIFEncoder.encodeHere(bitmap, quality: quality, lossless: lossless)
            try encoded.withUnsafeBytes { try writeAll($0) }
            return 0
        } catch {
            let line = "\(workerCommand): \((error as? WebImageError)?.message ?? "\(error)")\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return 1
        }
    }

    private static func readExactly(_ count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let n = read(STDIN_FILENO, buffer.baseAddress! + initialized, count - initialized)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw WebImageError(.encodingFailed, "standard input ended after \(initialized) of \(count) bytes")
                }
                initialized += n
            }
        }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw WebImageError(.encodingFailed, "standard output closed") }
            done += n
        }
    }
}
