import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Stands in for SDWebImage's CoreImage filter transformer (not available on Linux) so the
/// eight-step pipeline of SDWebImage's test can be rebuilt: inverts colours, keeps alpha.
private struct InvertTransformer: ImageTransforming {
    var transformerKey: String { "SDImageFilterTransformer(CIColorInvert)" }
    func transform(_ image: Image, forKey key: String) -> Image? {
        let frames = image.frames.map { frame in
            ImageFrame(bitmap: Bitmap(width: frame.bitmap.width, height: frame.bitmap.height,
                                      pixels: frame.bitmap.pixels.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }),
                       duration: frame.duration)
        }
        return Image(frames: frames)   // metadata deliberately dropped: transformedImage restores it
    }
}

/// A transformer that always fails.
struct FailingTransformer: ImageTransforming {
    var transformerKey: String { "Failing" }
    func transform(_ image: Image, forKey key: String) -> Image? { nil }
}

/// A transformer that opts out of metadata preservation.
private struct BareTransformer: ImageTransforming {
    var transformerKey: String { "Bare" }
    var preserveImageMetadata: Bool { false }
    func transform(_ image: Image, forKey key: String) -> Image? { Image(frames: image.frames) }
}

@Suite("Transform pipeline, animation and metadata")
struct TransformPipelineTests {
    typealias F = TransformFixtures

    static let eightSteps: [any ImageTransforming] = [
        ResizingTransformer(size: PointSize(width: 100, height: 100), scaleMode: .aspectFill),
        RotationTransformer(angle: .pi / 4, fitSize: false),
        RoundCornerTransformer(cornerRadius: 50, corners: .all, borderWidth: 1, borderColor: .black),
        FlippingTransformer(horizontal: true, vertical: true),
        CroppingTransformer(rect: PointRect(x: 0, y: 0, width: 50, height: 50)),
        TintTransformer(color: .clear),
        BlurTransformer(radius: 5),
        InvertTransformer(),
    ]

    @Test func eightStepPipelineKeyAndSize() throws {
        let pipeline = PipelineTransformer(Self.eightSteps)
        #expect(pipeline.transformerKey == "SDImageResizingTransformer({100.000000,100.000000},2)"
            + "-SDImageRotationTransformer(0.785398,0)"
            + "-SDImageRoundCornerTransformer(50.000000,18446744073709551615,1.000000,#ff000000)"
            + "-SDImageFlippingTransformer(1,1)"
            + "-SDImageCroppingTransformer({0.000000,0.000000,50.000000,50.000000})"
            + "-SDImageTintTransformer(#00000000,18)"
            + "-SDImageBlurTransformer(5.000000)"
            + "-SDImageFilterTransformer(CIColorInvert)")
        let out = try #require(F.apply(pipeline))
        #expect(out.pixelSize == PixelSize(width: 50, height: 50))
        // A clear tint leaves nothing visible, whatever the later steps do to colour.
        #expect(out.bitmap.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 0 })
        #expect(out.format == .png)                      // each child kept the metadata
    }

    @Test func pipelineStepsRunInOrder() throws {
        let cropThenFlip = PipelineTransformer([
            CroppingTransformer(rect: PointRect(x: 0, y: 0, width: 150, height: 150)),
            FlippingTransformer(horizontal: true, vertical: false),
        ])
        let out = try #require(F.apply(cropThenFlip))
        #expect(out.pixelSize == PixelSize(width: 150, height: 150))
        #expect(out.colourAt(145, 5) == F.red)                // red corner moved to the right
        #expect(out.colourAt(5, 5) == .black)                 // top band (x 100..<150) now on the left
        let empty = F.image()
        #expect(PipelineTransformer([]).transformedImage(empty, forKey: "k") === empty)
    }

    @Test func aFailingStepFailsThePipeline() {
        let pipeline = PipelineTransformer([FlippingTransformer(horizontal: true, vertical: false), FailingTransformer()])
        #expect(F.apply(pipeline) == nil)
    }

    @Test func metadataIsKeptUnlessATransformerOptsOut() throws {
        let options = DecodeOptions(scaleFactor: 2)
        let source = Image(frames: [ImageFrame(bitmap: F.bitmap, duration: 0.1), ImageFrame(bitmap: F.bitmap, duration: 0.2)],
                           loopCount: 3, format: .webp, scale: 2, decodeOptions: options)
        let kept = try #require(InvertTransformer().transformedImage(source, forKey: "k"))
        #expect(kept.format == .webp && kept.loopCount == 3 && kept.scale == 2 && kept.decodeOptions == options)
        #expect(kept.colourAt(150, 0) == .white)
        let bare = try #require(BareTransformer().transformedImage(source, forKey: "k"))
        #expect(bare.format == .undefined && bare.scale == 1 && bare.decodeOptions == nil)
        // The pipeline itself does not copy, but a preserving last step does.
        let piped = try #require(PipelineTransformer([InvertTransformer(), BareTransformer()]).transformedImage(source, forKey: "k"))
        #expect(piped.format == .undefined)
        let pipedBack = try #require(PipelineTransformer([BareTransformer(), InvertTransformer()]).transformedImage(source, forKey: "k"))
        #expect(pipedBack.format == .undefined)            // the invert step copies from its (bare) input
    }

    @Test func everyFrameOfAnAnimationIsTransformed() throws {
        let colours = [F.red, F.green, F.blue]
        let frames = colours.enumerated().map { index, colour in
            ImageFrame(bitmap: Bitmap(width: 40, height: 20) { out in
                for i in stride(from: 0, to: out.count, by: 4) {
                    let left = (i / 4) % 40 < 20
                    let c = left ? colour : RGBA.white
                    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = c.a
                }
            }, duration: Double(index + 1) / 10)
        }
        let animation = Image(frames: frames, loopCount: 2, format: .gif)
        let transformers: [any ImageTransforming] = [
            FlippingTransformer(horizontal: true, vertical: false),
            ResizingTransformer(size: PointSize(width: 20, height: 10)),
            RotationTransformer(angle: .pi, fitSize: false),
            PipelineTransformer([CroppingTransformer(rect: PointRect(x: 20, y: 0, width: 20, height: 20)),
                                 TintTransformer(color: F.magenta)]),
        ]
        for transformer in transformers {
            let out = try #require(transformer.transformedImage(animation, forKey: "k"), "\(transformer.transformerKey)")
            #expect(out.frames.count == 3)
            #expect(out.frames.map(\.duration) == [0.1, 0.2, 0.3])
            #expect(out.loopCount == 2 && out.format == .gif)
        }
        let flipped = try #require(transformers[0].transformedImage(animation, forKey: "k"))
        for (index, colour) in colours.enumerated() {
            #expect(flipped.frames[index].bitmap.pixel(x: 39, y: 10) == colour)
            #expect(flipped.frames[index].bitmap.pixel(x: 0, y: 10) == .white)
        }
    }
}
