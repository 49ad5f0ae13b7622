import OpenCoreData
print("done")
