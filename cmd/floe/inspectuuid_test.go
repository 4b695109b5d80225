package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// RFC 9562's examples (Appendix A): the same time as versions 1, 6 and 7.
const (
	rfcV1 = "C232AB00-9414-11EC-B3C8-9F6BDECED846"
	rfcV6 = "1EC9414C-232A-6B00-B3C8-9F6BDECED846"
	rfcV7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F"
	rfcV4 = "919108f7-52d1-4320-9bac-f847db4148a8"
)

func TestInspect_UUID(t *testing.T) {
	const v7Reading = "id128 time=2022-02-22T19:22:22Z tick=1645557742000 counter=209112 worker=50396 random=0xc0c07398f\n"
	tests := []struct {
		name string
		args []string
		want string
		errs string // in stderr
	}{
		{"version 7 is an id128", []string{rfcV7}, rfcV7 + " " + v7Reading, ""},
		{"id128 after urn:uuid:", []string{"urn:uuid:" + strings.ToLower(rfcV7)}, "urn:uuid:" + strings.ToLower(rfcV7) + " " + v7Reading, ""},
		{"id128 in braces", []string{"{" + rfcV7 + "}"}, "{" + rfcV7 + "} " + v7Reading, ""},
		{"id128 without dashes", []string{"017f22e279b07cc398c4dc0c0c07398f"}, "017f22e279b07cc398c4dc0c0c07398f " + v7Reading, ""},
		{"forced id128", []string{"-format", "id128", rfcV7}, rfcV7 + " " + v7Reading, ""},
		{"version 7 as any uuid", []string{"-format", "uuid", rfcV7}, rfcV7 + ` uuid version=7 variant=10 kind="Unix time in milliseconds" time=2022-02-22T19:22:22Z` + "\n", ""},
		{"version 1", []string{rfcV1}, rfcV1 + ` uuid version=1 variant=10 kind="Gregorian time and node" time=2022-02-22T19:22:22Z` + "\n", ""},
		{"version 6", []string{rfcV6}, rfcV6 + ` uuid version=6 variant=10 kind="reordered Gregorian time and node" time=2022-02-22T19:22:22Z` + "\n", ""},
		{"version 1 to 100 ns", []string{"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}, `6ba7b810-9dad-11d1-80b4-00c04fd430c8 uuid version=1 variant=10 kind="Gregorian time and node" time=1998-02-04T22:13:53.1511824Z` + "\n", ""},
		{"version 2", []string{"000003e8-9414-21ec-b300-9f6bdeced846"}, `000003e8-9414-21ec-b300-9f6bdeced846 uuid version=2 variant=10 kind="DCE Security, time truncated to 7m9.4967296s" time=2022-02-22T19:16:56.189952Z` + "\n", ""},
		{"version 3", []string{"5df41881-3aed-3515-88a7-2f4a814cf09e"}, `5df41881-3aed-3515-88a7-2f4a814cf09e uuid version=3 variant=10 kind="name-based (MD5), no time"` + "\n", ""},
		{"version 4", []string{rfcV4}, rfcV4 + ` uuid version=4 variant=10 kind="random, no time"` + "\n", ""},
		{"version 5", []string{"2ed6657d-e927-568b-95e1-2665a8aea6a2"}, `2ed6657d-e927-568b-95e1-2665a8aea6a2 uuid version=5 variant=10 kind="name-based (SHA-1), no time"` + "\n", ""},
		{"version 8", []string{"2489E9AD-2EE2-8E00-8EC9-32D5F69181C0"}, `2489E9AD-2EE2-8E00-8EC9-32D5F69181C0 uuid version=8 variant=10 kind="custom, no time"` + "\n", ""},
		{"nil", []string{"00000000-0000-0000-0000-000000000000"}, `00000000-0000-0000-0000-000000000000 uuid variant=0 kind="the nil UUID"` + "\n", ""},
		{"max", []string{"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"}, `FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF uuid variant=111 kind="the max UUID"` + "\n", ""},
		{"microsoft", []string{"{00020906-0000-0000-C000-000000000046}"}, `{00020906-0000-0000-C000-000000000046} uuid variant=110 kind="Microsoft variant (reserved), no version, no time"` + "\n", ""},
		{"32 decimal digits are a uuid", []string{"01234567890123456789012345678901"}, `01234567890123456789012345678901 uuid variant=0 kind="NCS variant (reserved), no version, no time"` + "\n", ""},
		{"forced id128 on version 1", []string{"-format", "id128", rfcV1}, "", rfcV1 + ": id128: UUID version 1, want version 7, variant 10 (RFC 9562)\n"},
		{"forced id128 on nil", []string{"-format", "id128", "00000000-0000-0000-0000-000000000000"}, "", "00000000-0000-0000-0000-000000000000: id128: the nil UUID, want version 7, variant 10 (RFC 9562)\n"},
		{"forced id128 on garbage", []string{"-format", "id128", "garbage"}, "", "garbage: id128: invalid length 7, want 36 characters"},
		{"forced uuid on garbage", []string{"-format", "uuid", "garbage"}, "", "garbage: uuid: invalid length 7, want 36 characters"},
		{"forced id64 on a uuid", []string{"-format", "id64", rfcV4}, "", rfcV4 + ": id64: invalid character 'f' at offset 6, want 0-9\n"},
		{"bad digit", []string{"017f22e2-79b0-7cc3-98c4-dc0c0c07398g"}, "", "017f22e2-79b0-7cc3-98c4-dc0c0c07398g: uuid: invalid character 'g' at offset 35, want 0-9 a-f A-F\n"},
		{"bad dash", []string{"017f22e2-79b0-7cc3-98c4_dc0c0c07398f"}, "", "017f22e2-79b0-7cc3-98c4_dc0c0c07398f: uuid: invalid character '_' at offset 23, want -\n"},
		{"json", []string{"-o", "json", rfcV7, rfcV4, rfcV1, "00000000-0000-0000-0000-000000000000"},
			`{"id":"017f22e2-79b0-7cc3-98c4-dc0c0c07398f","format":"id128","time":"2022-02-22T19:22:22Z","tick":1645557742000,"worker":50396,"counter":209112,"random":51741407631,"likely":true}` + "\n" +
				`{"id":"919108f7-52d1-4320-9bac-f847db4148a8","format":"uuid","version":4,"variant":"10","kind":"random, no time","likely":true}` + "\n" +
				`{"id":"c232ab00-9414-11ec-b3c8-9f6bdeced846","format":"uuid","version":1,"variant":"10","kind":"Gregorian time and node","time":"2022-02-22T19:22:22Z","likely":true}` + "\n" +
				`{"id":"00000000-0000-0000-0000-000000000000","format":"uuid","variant":"0","kind":"the nil UUID","likely":true}` + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"inspect"}, tc.args...), &out, &errOut)
			wantCode := 0
			if tc.errs != "" {
				wantCode = 1
			}
			if code != wantCode || out.String() != tc.want || !strings.Contains(errOut.String(), tc.errs) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out.String(), errOut.String(), wantCode, tc.want, tc.errs)
			}
		})
	}
}

func TestInspect_UUIDStdin(t *testing.T) {
	in := "  " + rfcV7 + "\n" + rfcV4 + "\r\n\n1599182356107579392\n"
	var out, errOut bytes.Buffer
	var code int
	withStdin(t, strings.NewReader(in), func() { code = run([]string{"inspect"}, &out, &errOut) })
	want := rfcV7 + " id128 time=2022-02-22T19:22:22Z tick=1645557742000 counter=209112 worker=50396 random=0xc0c07398f\n" +
		rfcV4 + ` uuid version=4 variant=10 kind="random, no time"` + "\n" +
		"1599182356107579392 id64 layout=twitter time=2022-12-03T23:22:39.724Z tick=381274785067 datacenter=14 worker=21 sequence=0\n"
	if code != 0 || out.String() != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", code, out.String(), errOut.String(), want)
	}
}

// TestInspector_UUIDLikely: a time-based UUID is likely when its time lies
// in the past, and a UUID without a time always is.
func TestInspector_UUIDLikely(t *testing.T) {
	rfc := time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC)
	tests := []struct {
		name   string
		text   string
		now    time.Time
		likely bool
	}{
		{"id128 in the past", rfcV7, rfc.Add(time.Hour), true},
		{"id128 in the future", rfcV7, rfc.Add(-2 * time.Hour), false},
		{"version 1 in the past", rfcV1, rfc.Add(time.Hour), true},
		{"version 6 in the future", rfcV6, rfc.Add(-2 * time.Hour), false},
		{"version 4", rfcV4, rfc, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := inspector{format: "", now: func() time.Time { return tc.now }}
			found, err := in.inspect(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != 1 || found[0].likely != tc.likely || found[0].json.Likely != tc.likely {
				t.Errorf("readings %+v, want one, likely %t", found, tc.likely)
			}
		})
	}
}
