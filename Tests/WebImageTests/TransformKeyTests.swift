import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Transform keys")
struct TransformKeyTests {
    @Test func builtInKeysMatchSDWebImage() {
        #expect(RoundCornerTransformer(cornerRadius: 50, corners: .all, borderWidth: 1, borderColor: .black)
            .transformerKey == "SDImageRoundCornerTransformer(50.000000,18446744073709551615,1.000000,#ff000000)")
        #expect(RoundCornerTransformer(cornerRadius: 10, corners: [.topLeft, .bottomRight], borderWidth: 0)
            .transformerKey == "SDImageRoundCornerTransformer(10.000000,9,0.000000,(null))")
        #expect(ResizingTransformer(size: PointSize(width: 200, height: 100), scaleMode: .fill)
            .transformerKey == "SDImageResizingTransformer({200.000000,100.000000},0)")
        #expect(ResizingTransformer(size: PointSize(width: 100, height: 100), scaleMode: .aspectFill)
            .transformerKey == "SDImageResizingTransformer({100.000000,100.000000},2)")
        #expect(ResizingTransformer(size: PointSize(width: 2000, height: 1000), scaleMode: .aspectFit)
            .transformerKey == "SDImageResizingTransformer({2000.000000,1000.000000},1)")
        #expect(CroppingTransformer(rect: PointRect(x: 50, y: 10, width: 200, height: 200))
            .transformerKey == "SDImageCroppingTransformer({50.000000,10.000000,200.000000,200.000000})")
        #expect(FlippingTransformer(horizontal: true, vertical: false).transformerKey
            == "SDImageFlippingTransformer(1,0)")
        #expect(RotationTransformer(angle: .pi / 4, fitSize: false).transformerKey
            == "SDImageRotationTransformer(0.785398,0)")
        #expect(RotationTransformer(angle: -1.5, fitSize: true).transformerKey
            == "SDImageRotationTransformer(-1.500000,1)")
        #expect(TintTransformer(color: .clear).transformerKey == "SDImageTintTransformer(#00000000,18)")
        #expect(TintTransformer(color: RGBA(r: 255, g: 0, b: 0, a: 128), blendMode: .multiply)
            .transformerKey == "SDImageTintTransformer(#80ff0000,1)")
        #expect(BlurTransformer(radius: 25).transformerKey == "SDImageBlurTransformer(25.000000)")
    }

    @Test func emptyPipelineHasAnEmptyKey() {
        #expect(PipelineTransformer([]).transformerKey == "")
        #expect(PipelineTransformer([]).preserveImageMetadata == false)
        #expect(PipelineTransformer([BlurTransformer(radius: 1)]).transformerKey == "SDImageBlurTransformer(1.000000)")
    }

    @Test func cornerOptionValuesAreUIKits() {
        #expect(ImageCorners.all.rawValue == UInt.max)
        #expect(ImageCorners([.topLeft, .topRight, .bottomLeft, .bottomRight]).rawValue == 15)
        #expect(ImageScaleMode.aspectFit.rawValue == 1)
        #expect(TintBlendMode.sourceIn.rawValue == 18)
    }
}
