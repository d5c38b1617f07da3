import Foundation
import Testing
import WebImage

/// Inputs the fuzz targets (Fuzz/, docs/RELIABILITY.md) flagged, replayed through the same checks.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// fuzz-gif reported a timeout (and a slow unit) on this mutated GIF: an 8457x97 canvas with
    /// one 8448x9 frame and a 256-colour local table. Re-run, it takes well under a second of CPU;
    /// the timeout was the wall clock of a starved `nice` process. Kept as a large-canvas case:
    /// decodes stay within the limits, the thumbnail fits its box, the budget is met.
    @Test func wideGIFCanvasDecodesWithinLimits() throws {
        let data = FuzzReplay.bytes("""
        R0lGOAB3CSFhADkAACwAAAAAIQAJAIcWEBmWACoEjyNDH0Pv3wO3AKFLn2a3n8Sbn6xPX1ucDJB/n5NnP2lfv36HH36Hv6Fv
        P3B3H3BvX3eLn54A3zHg+AA/32mv38uT37P7/xVX335/36F3P3d/v5p7X4J/AHDpAAf/nwPXH8TXf9mnf6+nAJNvn4WPAH6Q
        mKj73w7Pv+Cfv7Zn3w0YMFbDvu3bFwKVLXY0wtwyc6lUJCHkGsiCcqXDg1WrVrxRJWzSJBXVqIFVA0cFDIUtL39Gr1+vY390
        awBfR39bk2+abx9pX19pb39+gGiMdwBpF/9NT79wX9+Ffx931QAc1z/Loz+ef3+Mi1+Qb9+TJz8xTx9NXx9bZ19w8R8Hb7+M
        mwCJd5+Mkx+J978DZ/+Tc/+ed7+Tkz+QD58xZ59+B9845/8DL59NL99bn9+9/78KH79GH/9UH18xRz9NZx9iL79UM/9mXz9i
        rwCam3+ld9+an//EqDioePiop7+9Nz8/zAy4U39mVz9bV/+FYAAVxz+9V19iH99NOBg4J59GJ99UJ184vwCo6x/Wr3+2t1+2
        5z/Zp1+op9/Ezx+9zz/Ewx+zrz+ox3/LJ38/M19Drx+hr5+9ywCzt3+9SwBDtx+oR79pR99ww7/WH58/P19NN59UN79bPz9G
        BP88OPhwp//Li/+zx9/gl/+9R/93CPhAJ/9bvz+2P/9wt//ZP79iN99iHR84AL8qv3/Er7/Ek7+s15/gp5+2QwA1Emootz+v
        W590Z7+F21/Wn1+hLz84B78xJ79NG381Tz9UWHhwTh8qv1+9SR8x+z/rx1/Ey5/WP59bt7/L35/nR19UUJhw51/g1wC9BD8S
        ox+Xhz+FANg4u9/WO39R3z/Sr//IuODP3+fH/+fA2OD7f/nPX8vQmOC/n8vnn+7rv/nX//UHnypbAFFXv3dXH1QXnzgP3z9i
        HxVP33cX30YEqDAPvzhiHyPX3+7fH8tP/37fAMTff+Dv/wpf/4z7H+TzANbvP+D3X+7vf+6//+Dzn/kP/0bj3/nnAMv/AOAI
        /wBjgIhRpwiAAK5cPXo0blyOHEA+wDgRJUqJNAX6NGp0LJ4/e/b+PQGAbka7Xb1ODRjApFyTMjwiEHEwZUqyZIsgGTJESMQ7
        P37q1UOGLFo0aEtqwcFELybXHDQMIHBwoQwLliNHDsESZaeQEWeB7vnyJUPGqzFj+ChSVIlYgjs9nEjw4CFJElq0BN0AxOsX
        t1mzjBnDh0+AAFyIE9lo1kyHHDk4cPjwgQSJmssk/jhKhcjaCHnT8m3bJk5cFnOU9HSxFMyAgVixtJiQsmDCBAQIWjE64A0Y
        MFbDvu3bFwKVLXY0wtwyc6lUJCHkGsiCcqXDg1WrVrxRJWzSJBXVqIFVA0cFDIUtL39Gr1+vY390awBfR39bk2+abx9pX19p
        b39+gGiMdwBpF/9NT79wX9+Ffx931QAc1z/Loz+ef3+Mi1+Qb9+TJz8xTx9NXx9bZ19w8R8Hb7+MmwCJd5+Mkx+J978DZ/+T
        c/+ed7+Tkz+QD58xZ59+B9845/8DL59NL99bn9+9/78KH79GH/9UH18xRz9NZx9iL79UM/9mXz9irwCam3+ld9+an//EqDio
        ePiop7+9Nz8/zAy4U39mVz9bV/+FYAAVxz+9VwBiH99NOBg4J59GJ99UJ184vwCo6x/Wr3+2t1+25z/Zp1+op9/Ezx+9zz/E
        wx+zrz+ox3/LJ38/M19Drx+hr5+9ywCzt3+9SwBDtx+oR79pR99ww7/WH58/P19NN59UN79bPz9GBP88OPhwp//Li/+zx9/g
        l/+9R/93CPhAJ/9bvz+2P/9wt//ZP79iN99iHR84AL8qv3/Er7/Ek7+s15/gp5+2QwA1Emootz+vW590Z7+F21/Wn1+hLz84
        B78xJ79NG381Tz9UWHhwTh8qv1+9SR8x+z/rx1/Ey5/WP59bt7/L35/nR19UUJhw51/g1wC9BD8Sox+Xhz+FANg4u9/WO39R
        3z/Sr//SHz8qEz8g4Fjg53/n37/u17/nz3/SyLjgz9/nx//nwNjg+3/5z1/L0Jjgv5/L55/u67/51//1B58qWwBRV793Vx9U
        F584D98/Yh8VT993F99GBKgwD784Yh8j19/u3x/LT/9+3wDE33/g7/8KX/+M+x/k8wDW7z/g91/u73/uv//g85/5D/9G49/5
        5wDL/wDgCP8AY4CIUacIgACuXD16NG5cjhxAPsA4ESVKiTQF+jRqdCyeP3v2/j0BgG5Gu129Tg0YwKRckzI8IhBxMGVKsmSL
        IBky59Th2ePFlAVJ6TQMYaFkzYYXGDB8GXSBGbNO2LjTTz8EpJBCJpnwE4QYoZxxxiifwEMHPVVYYUULnHDiCRubPEOKPtlk
        E044XMyTQQYBAQA7
        """)
        #expect(data.count == 1812)
        for options in FuzzReplay.optionSets {
            FuzzReplay.decode(data, with: GIFCoder(), options: options, formats: [.gif])
        }
        let full = try GIFCoder().decode(data, options: FuzzReplay.optionSets[0])
        #expect(full.pixelSize == PixelSize(width: 8457, height: 97))
        let thumbnail = try GIFCoder().decode(data, options: FuzzReplay.optionSets[1])
        #expect(thumbnail.width == 40 && thumbnail.height <= 30)
    }

    /// fuzz-webp's slowest unit: an animated WebP whose 17x29468 canvas holds 17x11 frames.
    /// Every decode mode must give a well-formed image or a clean error.
    @Test func tallAnimatedWebPCanvasDecodesWithinLimits() {
        let data = FuzzReplay.bytes("""
        UklGRkQCAABXRUJQVlA4WAoAAAASAAAAEAAAG3MAQU5JTQYAAAAAAAAAAwBBTk1GmgAAAAAAAAAAABAAAAoAADIAAAJBTFBI
        IwAAAAFHoJBtBAjhzl/2h4iIFPEg0LC4LLLIoob+EyCi/wGwxnoGAFZQOCBWAAAAsAMAnQEqEQALAD7RVqVMKCSjojAIAQAa
        CWwAnSAlwrhQh//jmqAA/uwInPyw7VKwNpD1V5uyAXHJW3rJn9zjkievQ0ir/Tic1XTDiFmTscgI8rZAAABBTk1GsgAAAAAA
        AAAAABAAAAoAAGQAAAJBTFBIIwAAAAFHoJBtBAjhzl/2h4iIFPEg0LC4LLLIoob+EyCi/wGwxnoGAFZQOCBuAAAA8AMAnQEq
        EQALAD7RVKNLqCSjIbAIAQAaCWwAsRtSekgGEF+CWVbDEAD+5f+Kk38qo+q6DxLTZ/0jMP3By2/SadsdvrsLEtxCrBDvepfP
        /4N66rVUpfMKvNEBhyz2CK/5seD+x/5r4r6b3a1ngABBTk1GvAAAAAAAAAAAABAAAAoAAJYAAAJBTFBIIwAAAAFHoJBtBAjh
        zl/2h4mIFPEg0LC4LLLIooH+EyCi/wGwxnoGAFZQOCB4AAAAMAQAnQEqEQALAD7RVKNLqCSjIbAIAQAaCWwAnTKEeD6AAvNa
        zu7KwCOAAP68CqrifqZCo1unkZJhujfEcrvpF3p3zDj0/6/sPkcZVJueapvcCPlYJJL0NRWUKAaqZsut/qbrlkXqE1/UH///
        0KqDPMNnNXSKEAAA
        """)
        #expect(data.count == 588)
        for options in FuzzReplay.optionSets {
            FuzzReplay.decode(data, with: WebPCoder(), options: options, formats: [.webp])
        }
    }
}
