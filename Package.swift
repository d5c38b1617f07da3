// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WebImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        // The image layer alone (decode, thumbnail, transform), for tools that need no network stack.
        .library(name: "WebImageCodecs", targets: ["WebImageCodecs"]),
        // The image server behind `webimage serve`, to embed in an application of one's own.
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        // A shared cache tier on Redis (hiredis), its own product so the library never links hiredis.
        .library(name: "WebImageRedis", targets: ["WebImageRedis"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `make docs`: `swift package generate-documentation` (no code of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CSPNG", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        // SVG, rendered by librsvg onto a cairo surface.
        .systemLibrary(name: "CRSVG", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        // No pkgConfig: libavif.pc's only flag is -DAVIF_DLL, which SwiftPM refuses with a warning;
        // the headers are in /usr/include, where the compiler looks anyway.
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // JPEG XL: libjxl alone; its thread runner (libjxl_threads) is not linked, since every
        // decode and encode runs on one thread (a server runs many at once).
        .systemLibrary(name: "CJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        // BMP and ICO bitmaps, through gdk-pixbuf's loaders for exactly those formats.
        .systemLibrary(name: "CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0", providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        .systemLibrary(name: "CXattr"),
        // zlib, for the CRC-32 that checks a durable disk cache entry is whole.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // xxHash: the identity of a source's bytes (XXH3-128) and the shared tier's checksums (XXH3-64).
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // Redis's own C client, for the shared cache tier (Debian 12: hiredis 0.14, no hiredis_ssl).
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // Colour management: embedded ICC profiles converted to sRGB.
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // The per-pixel loop of the matrix/TRC colour conversion, in plain portable C.
        .target(name: "CMatrixShaper"),
        // The per-pixel loops of resizing: portable C, and AVX2+FMA chosen at run time where the
        // processor has them.
        .target(name: "CResample"),
        // A JPEG decode that reports finished rows as it goes (libjpeg-turbo's scanline API),
        // for colour conversion beside the decode; C because libjpeg reports errors by longjmp.
        .target(name: "CJPEGRows", linkerSettings: [.linkedLibrary("jpeg")]),
        // The image layer: the image model, coders, transformers. Usable alone to decode,
        // thumbnail and transform; names nothing of the layers above.
        .target(
            name: "WebImageCodecs",
            dependencies: ["CTurboJPEG", "CSPNG", "CWebP", "CGIF", "CRSVG", "CLCMS2", "CMatrixShaper", "CResample", "CJPEGRows", "CAVIF", "CHEIF", "CJXL", "CTIFF", "CGdkPixbuf"]
        ),
        // The load layer: the request vocabulary (options, context, validators, the stage
        // protocols), the caches and the loaders.
        .target(
            name: "WebImageLoading",
            dependencies: [
                "WebImageCodecs", "CXattr", "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The safe-fetch guard's system resolver runs on NIO's blocking-I/O thread pool.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                // Test-only: property-based checks of the server's job planner.
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The manager, prefetcher and view binding; re-exports the two layers below, so users
        // import only WebImage.
        .target(
            name: "WebImage",
            dependencies: ["WebImageCodecs", "WebImageLoading"]
        ),
        // The shared cache tier on Redis: a connection pool with a circuit breaker, a byte store with
        // leases, and `RedisCache` for a `CachesManager`. Only what uses it links hiredis.
        .target(
            name: "WebImageRedis",
            dependencies: [
                "WebImageCodecs", "WebImageLoading", "CHiredis", "CXXHash",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // `webimage serve`: an image server with imgproxy's URL API on the pipeline. Its own target,
        // so that users of the library never build the HTTP server.
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage", "WebImageRedis", "CXXHash",
                .product(name: "Hummingbird", package: "hummingbird"),
                // Its HTTP/1 child channel, which the server extends with the cache-hit handler.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The HTTP parts a channel handler answering result-cache hits sees.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage", "WebImageServer", "WebImageRedis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `webimage serve` makes its Prometheus registry the swift-metrics backend.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Test-only: what the disk-cache worker and the tests that run it agree on (the cache
        // namespace, the keys, the self-checking value format).
        .target(
            name: "DiskCacheWorkerProtocol",
            path: "Tests/DiskCacheWorkerProtocol"
        ),
        // Test-only: a second process that hammers a disk cache directory, for the multi-process
        // disk cache tests. Not a product; `swift build` (with or without --build-tests) builds it.
        .executableTarget(
            name: "DiskCacheWorker",
            dependencies: [
                "WebImage", "DiskCacheWorkerProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/DiskCacheWorker"
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage", "WebImageCodecs", "WebImageLoading", "CTurboJPEG", "CSPNG", "CWebP", "CGIF", "CLCMS2", "CJXL", "CTIFF",
                "DiskCacheWorkerProtocol", "WebImageServer", "WebImageRedis",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Test-only: the self-signed HTTPS origin on loopback.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Test-only: the downloader's swift-metrics counters and its quiet default logger.
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                // Test-only: the client of the image server's tests, and its graceful shutdown.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Test-only: the server's HTTP/1 channel set up on an embedded channel.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // Test-only: a host application that mounts the image server's routes beside its own.
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            // Read by path (#filePath), not as bundle resources.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
