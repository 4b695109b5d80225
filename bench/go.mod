module github.com/floeid/floe/bench

go 1.26.0

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/floeid/floe v0.0.0-00010101000000-000000000000
	github.com/fogfish/guid/v2 v2.1.0
	github.com/google/uuid v1.6.0
	github.com/muyo/sno v1.2.1
	github.com/oklog/ulid/v2 v2.1.2
	github.com/rs/xid v1.6.0
	github.com/segmentio/ksuid v1.0.4
	github.com/sony/sonyflake/v2 v2.2.0
)

require github.com/gofrs/uuid/v5 v5.5.1

require github.com/sony/sonyflake v1.2.1

replace github.com/floeid/floe => ../
