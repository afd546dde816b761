print("datacenter")
