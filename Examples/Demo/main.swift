import Bridge
let promise: Promise<Int> = {
    let (promise, resolver) = Promise<Int>.pending()
    _ = resolver
    return promise
}()
print(promise.isPending)
let (p2, r2) = Promise<Int>.pending()
print(p2.isPending)
do { let (_, r3) = Promise<Int>.pending(); _ = r3 }
print("end")
