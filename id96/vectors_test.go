package id96

// guidVectors were computed with github.com/fogfish/guid/v2 v2.1.0: guid.G on
// a clock with a fixed node, time and sequence (and guid.FromL for drift code
// 0, which guid.G never writes). bytes is guid.Bytes, text guid.String (also
// the JSON string of guid.K.MarshalJSON) and cast guid.ToL(k).Lo.
var guidVectors = []struct {
	drift Drift
	tick  uint64
	node  uint32
	seq   uint16
	bytes string // hex
	text  string
	cast  uint64
}{
	{1, 13091652260768, 0xdeadbeef, 42, "22fa08d3bd5b7dde14e8002a", "7jc7ovpQUSsJu..e", 0x22fa08d214e8002a},
	{2, 13091652260768, 0xdeadbeef, 42, "42fa08d37ab6fbbe14e8002a", "Fjc7oreqyvsJu..e", 0x42fa08d214e8002a},
	{3, 13091652260768, 0xdeadbeef, 42, "62fa08d6f56df77a14e8002a", "Njc7pjKhxrcJu..e", 0x62fa08d214e8002a},
	{4, 13091652260768, 0xdeadbeef, 42, "82fa08ddeadbeef214e8002a", "Vjc7rTfQvj7Ju..e", 0x82fa08d214e8002a},
	{5, 13091652260768, 0xdeadbeef, 42, "a2fa08dbd5b7ddf214e8002a", "cjc7qxLrrU7Ju..e", 0xa2fa08d214e8002a},
	{6, 13091652260768, 0xdeadbeef, 42, "c2fa08f7ab6fbbd214e8002a", "kjc7xuhjix7Ju..e", 0xc2fa08d214e8002a},
	{7, 13091652260768, 0xdeadbeef, 42, "e2fa08ef56df77d214e8002a", "sjc7vpQUSx7Ju..e", 0xe2fa08d214e8002a},
	{3, 13091652260768, 0x1020304, 1, "62fa08d00810182214e80001", "Njc7o.VF517Ju..0", 0x62fa08d214e80001},
	{3, 0, 0x0, 0, "600000000000000000000000", "N...............", 0x6000000000000000},
	{3, 140737488355327, 0xffffffff, 16383, "7fffffffffffffffffffffff", "Uzzzzzzzzzzzzzzz", 0x7fffffffffffffff},
	{7, 140737488355327, 0xffffffff, 16383, "ffffffffffffffffffffffff", "zzzzzzzzzzzzzzzz", 0xffffffffffffffff},
	{1, 1, 0x1, 1, "200000000000000200004001", "7.........7..3.0", 0x2000000000004001},
	{5, 97064475041746, 0x8671440a, 14342, "b611e570ce28814387f4b806", "hW6_RBscVJD6xAV5", 0xb611e56387f4b806},
	{1, 10889757565275, 0x8c5d92d2, 9319, "2279de0918bb25a46856e467", "7bbT1GXv8PGcKiGb", 0x2279de086856e467},
	{6, 16536188776659, 0x85dca382, 3459, "c3c288617728e0aa1c34cd83", "kw97NMRcs9cRCBq2", 0xc3c2886a1c34cd83},
	{3, 33314026385486, 0x35ac84e6, 3598, "679321a9ad6427355c138e0e", "OtBWePpZ8nKR3ssD", 0x679321ad5c138e0e},
	{2, 31643943795352, 0xe43d287, 1179, "4731eb80390f4a1ddea6049b", "Gn6fV2ZEHWrTdVHQ", 0x4731eb81dea6049b},
	{7, 11691468573251, 0xc7003f03, 14539, "e2a88863801f81f53290f8cb", "seX7Ns.UVUJmZEYA", 0xe2a888753290f8cb},
	{3, 82633664839026, 0xac2b91cb, 14625, "72c9e98d615c8e5f4f5cb921", "RgbdYL4RY_xEMAZW", 0x72c9e98f4f5cb921},
	{2, 121860794849562, 0x3dd2c86a, 356, "5bb53b58f74b21a8e6468164", "LvJvLESA7PYaGc4Z", 0x5bb53b58e6468164},
	{6, 14451014625019, 0x60d92813, 8631, "c34928d8364a04e5f9bee1b7", "koZcq2O90DMtji5r", 0xc34928e5f9bee1b7},
	{3, 8149493711337, 0xb7a239a1, 5969, "61da5cedbd11cd0b607a5751", "NSdRvQoGnFhVT_SG", 0x61da5ceb607a5751},
	{2, 50687235196723, 0x884fd6a5, 3237, "4b8662aa213f5a9581cccca5", "HsOXeX3zLdL0nBm_", 0x4b8662a981cccca5},
	{3, 62315591832585, 0xc6800f2e, 476, "6e2b3eae34007975c50241dc", "QXgyfYF.TMM4.Z6R", 0x6e2b3eadc50241dc},
	{7, 100633950242771, 0xdbc9f01a, 6651, "f6e1aaede4f80d36d1f4d9fb", "xi5evTIs2IQGxCbv", 0xf6e1aab6d1f4d9fb},
	{1, 136475879057151, 0x45e514cf, 11443, "3f07f1128bca299ea9bfecb3", "EkUl3cj99Oudjymn", 0x3f07f112a9bfecb3},
	{3, 29992366743090, 0xa8e8e8b6, 1563, "66d1c915474745b7678c861b", "Oh684JS6GQSbY7NQ", 0x66d1c917678c861b},
	{5, 85552881442703, 0x5f895c09, 1431, "b373d54bf12b8126e7e3c597", "grEKHz3fVHQbswLM", 0xb373d546e7e3c597},
	{3, 46681804263180, 0xec1abb99, 3904, "6a9d3d1760d5dccf13c30f40", "Pdox4q2KrBwIkkx.", 0x6a9d3d1713c30f40},
	{5, 71230152579646, 0xdb810430, 9911, "b03223fb7020861c468fa6b7", "g27Yyr.VWWl5YuPr", 0xb03223fc468fa6b7},
	{2, 106947005941752, 0xa2f2a7e6, 13855, "585122928bca9f9b21fe361f", "L43XZcj9btgWzYNU", 0x5851229321fe361f},
	{4, 116772573600781, 0x46e7fcf7, 163, "9a8d0ef46e7fcf71370340a3", "acoDx5tznr3r.o1Y", 0x9a8d0ef1370340a3},
	{4, 94265420294829, 0x16eb5e, 3077, "956ef830016eb5e90aab4c05", "_LvsB.4ihTZ9eok4", 0x956ef8390aab4c05},
	{3, 79325509331057, 0xa37ddee4, 15996, "72095a351beef7238a1c7e7c", "RV_PCGjixmD966tw", 0x72095a338a1c7e7c},
	{6, 7554414570124, 0xf3649fea, 11652, "c1b7b9bcd927fa8c9aa32d84", "kQTtjCZbycmPcmq3", 0xc1b7b98c9aa32d84},
	{7, 53603747759595, 0xef548cb1, 11915, "ec302677aa465896017aee8b", "v2.aSud5L8N0TiuA", 0xec302616017aee8b},
	{0, 13091652260768, 0xcafef00d, 0, "02fa08d2cafef00d14e80000", ".jc7ogfyw.oJu...", 0x2fa08d214e80000},
	{0, 140737488355327, 0xcafef00d, 16383, "1fffffffcafef00dffffffff", "6zzzzwfyw.rzzzzz", 0x1fffffffffffffff},
}
