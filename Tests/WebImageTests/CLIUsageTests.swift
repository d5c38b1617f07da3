import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CLI usage errors")
struct CLIUsageTests {
    /// Each bad invocation exits 2 and its message names the bad token.
    @Test(arguments: [
        (["get", "http://127.0.0.1:9/a.png", "--option", "noSuchOption"], "noSuchOption"),
        (["get", "http://127.0.0.1:9/a.png", "--transform", "warp:3"], "warp:3"),
        (["get", "http://127.0.0.1:9/a.png", "--transform", "resize:axb"], "resize:axb"),
        (["get", "http://127.0.0.1:9/a.png", "--transform", "crop:1,2,3"], "crop:1,2,3"),
        (["get", "http://127.0.0.1:9/a.png", "--transform", "flip:x"], "flip:x"),
        (["get", "http://127.0.0.1:9/a.png", "--transform", "tint:#12"], "tint:#12"),
        (["get", "http://127.0.0.1:9/a.png", "--header", "NoColonHere"], "NoColonHere"),
        (["get", "http://127.0.0.1:9/a.png", "--thumbnail", "0x5"], "0x5"),
        (["get", "http://127.0.0.1:9/a.png", "--format", "bmp"], "bmp"),
        (["get", "http://127.0.0.1:9/a.png", "--max-concurrent", "0"], "0"),
        (["get", "http://127.0.0.1:9/a.png", "--retries", "-1"], "--retries"),
        (["get", "http://127.0.0.1:9/a.png", "--max-per-host", "0"], "--max-per-host"),
        (["get", "http://127.0.0.1:9/a.png", "--rate-limit", "-5"], "--rate-limit"),
        (["get", "http://127.0.0.1:9/a.png", "--retry-max-delay", "nan"], "--retry-max-delay"),
        (["get", "http://127.0.0.1:9/a.png", "--deny-private-addresses", "--allow-network", "10.0.0.0/33"],
         "10.0.0.0/33"),
        (["get", "http://127.0.0.1:9/a.png", "--deny-private-addresses", "--allow-network", "intranet"], "intranet"),
        (["get", "http://127.0.0.1:9/a.png", "--allow-network", "10.0.0.0/8"], "--deny-private-addresses"),
        (["prefetch", "http://127.0.0.1:9/a.png", "--allow-host", "images.internal"], "--deny-private-addresses"),
        (["get", "http://127.0.0.1:9/a.png", "--frobnicate"], "--frobnicate"),
        (["get", "not a url"], "not a url"),
        (["get", "http://127.0.0.1:9/a.png", "http://127.0.0.1:9/b.png", "-o", "x.png"], "-o"),
        (["get", "http://127.0.0.1:9/a.png", "-o", "out.psd"], "png, .jpg, .jpeg, .webp, .gif, .avif, .jxl, .tiff, .bmp or .ico"),
        (["get", "http://127.0.0.1:9/a.png", "-o", "dir/out.dat"], "'.dat'"),
        (["prefetch"], "--file"),
        (["prefetch", "http://127.0.0.1:9/a.png", "--max-concurrent", "0"], "0"),
        (["cache", "frob"], "frob"),
        (["demo", "--count", "0"], "0"),
        (["decode", "--thumbnail", "big", "x.png"], "big"),
        (["serve", "--shared-cache", "rediss://cache:6380/0"], "hiredis_ssl"),
        (["serve", "--shared-cache", "redis://cache:6379/db1"], "'db1' is not a database index"),
        (["serve", "--shared-cache", "memcached://cache:11211"], "memcached"),
        (["serve", "--shared-cache", "redis://cache:6379/0", "--shared-cache-timeout", "0"], "--shared-cache-timeout"),
        (["serve", "--read-timeout", "0"], "--read-timeout"),
        (["serve", "--read-timeout", "nan"], "--read-timeout"),
        (["serve", "--keep-alive-timeout", "3601"], "--keep-alive-timeout"),
        (["serve", "--max-connections", "0"], "--max-connections"),
        (["serve", "--memory-pressure", "sometimes"], "--memory-pressure"),
        (["serve", "--autoquality-target", "1.5"], "--autoquality-target"),
        (["serve", "--autoquality-target", "nan"], "--autoquality-target"),
        (["serve", "--autoquality-min", "80", "--autoquality-max", "70"], "--autoquality-min"),
        (["serve", "--autoquality-max", "0"], "--autoquality-max"),
        (["serve", "--best-format-max-encodes", "1"], "--best-format-max-encodes"),
        (["serve", "--best-format-max-resolution", "-1"], "--best-format-max-resolution"),
        (["serve", "--watermark-opacity", "0"], "--watermark-opacity"),
        (["serve", "--watermark-opacity", "nan"], "--watermark-opacity"),
        (["serve", "--watermark-url", "ftp://cdn/mark.png"], "--watermark-url"),
        (["serve", "--watermark-data", "not base64!"], "--watermark-data"),
        (["serve", "--watermark-path", "a.png", "--watermark-data", "AAAA"], "not 2"),
        (["serve", "--port", "0", "--watermark-path", "/nonexistent/mark.png"], "--watermark-path /nonexistent/mark.png cannot be read"),
        (["serve", "--port", "0", "--watermark-data", "bm90IGFuIGltYWdl"], "--watermark-data) is not an image"),
        (["shared-cache-bench", "--redis", "redis://:1"], "names no host"),
    ])
    func badTokenExitsTwo(arguments: [String], token: String) async throws {
        let run = try await CLIProcess.run(arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(token), "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// `serve` reads the watermark settings from `WEBIMAGE_WATERMARK_*` too: a bad one exits 2
    /// naming its flag.
    @Test(arguments: [
        (["WEBIMAGE_WATERMARK_PATH": "/nonexistent/env-mark.png"], "--watermark-path /nonexistent/env-mark.png"),
        (["WEBIMAGE_WATERMARK_URL": "file:///etc/passwd"], "--watermark-url"),
        (["WEBIMAGE_WATERMARK_DATA": "bm90IGFuIGltYWdl"], "--watermark-data"),
        (["WEBIMAGE_WATERMARK_OPACITY": "3"], "--watermark-opacity"),
    ])
    func serveReadsTheWatermarkFromTheEnvironment(environment: [String: String], token: String) async throws {
        let run = try await CLIProcess.run(["serve", "--port", "0"], environment: environment)
        #expect(run.status == 2, "\(environment): \(run.stderr)")
        #expect(run.stderr.contains(token), "\(environment): \(run.stderr)")
    }
}
