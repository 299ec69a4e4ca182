#include "remote/object_url.h"

#include <gtest/gtest.h>

namespace segfeed::remote {
namespace {

TEST(ObjectUrlTest, ParsesS3BucketAndKey) {
  Result<ObjectUrl> url = ParseObjectUrl("s3://my-bucket/voc/index.sfidx");
  ASSERT_TRUE(url.ok());
  EXPECT_TRUE(url.value().is_s3());
  EXPECT_EQ(url.value().authority, "my-bucket");
  EXPECT_EQ(url.value().key, "voc/index.sfidx");
  EXPECT_EQ(url.value().ToString(), "s3://my-bucket/voc/index.sfidx");
}

TEST(ObjectUrlTest, ParsesHttpHostWithPort) {
  Result<ObjectUrl> url = ParseObjectUrl("http://127.0.0.1:8080/data/voc/index.sfidx");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url.value().scheme, ObjectUrl::Scheme::kHttp);
  EXPECT_EQ(url.value().authority, "127.0.0.1:8080");
  EXPECT_EQ(url.value().key, "data/voc/index.sfidx");
  EXPECT_EQ(ParseObjectUrl("https://host/x").value().scheme, ObjectUrl::Scheme::kHttps);
}

TEST(ObjectUrlTest, RefusesOtherSchemesAndMissingParts) {
  EXPECT_FALSE(ParseObjectUrl("gs://bucket/key").ok());
  EXPECT_FALSE(ParseObjectUrl("s3:///key").ok());
  EXPECT_FALSE(ParseObjectUrl("https:///path").ok());
  EXPECT_FALSE(ParseObjectUrl("s3://bucket:1/key").ok());
  EXPECT_FALSE(ParseObjectUrl("https://host/key?x=1").ok());
  EXPECT_TRUE(IsObjectUrl("s3://b/k"));
  EXPECT_FALSE(IsObjectUrl("/data/s3://b"));
}

TEST(ObjectUrlTest, RefusesCredentialsWithoutRepeatingThem) {
  Result<ObjectUrl> url = ParseObjectUrl("https://user:hunter2@host/key");
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.error().Message().find("hunter2"), std::string::npos) << url.error().Message();
  EXPECT_NE(url.error().detail.find("AWS_ACCESS_KEY_ID"), std::string::npos);
}

TEST(ObjectUrlTest, SiblingReplacesTheLastComponent) {
  const ObjectUrl index = ParseObjectUrl("s3://b/voc/index.sfidx").value();
  EXPECT_EQ(index.Sibling("train-000001.tar").ToString(), "s3://b/voc/train-000001.tar");
  EXPECT_EQ(ParseObjectUrl("s3://b/index.sfidx").value().Sibling("a.tar").ToString(),
            "s3://b/a.tar");
}

TEST(ObjectUrlTest, PercentEncodesKeysAsSigV4Signs) {
  EXPECT_EQ(PercentEncodeKey("voc/train-000001.tar"), "voc/train-000001.tar");
  EXPECT_EQ(PercentEncodeKey("my data/a+b=c~_.tar"), "my%20data/a%2Bb%3Dc~_.tar");
  EXPECT_EQ(PercentEncodeKey("caf\xC3\xA9"), "caf%C3%A9");
}

TEST(ObjectUrlTest, AddressesBucketsPathStyleAndVirtualHosted) {
  const ObjectUrl object = ParseObjectUrl("s3://bkt/a b.tar").value();
  EXPECT_EQ(RequestUrl(object, "http://127.0.0.1:9000/", "us-east-1", Addressing::kPath),
            "http://127.0.0.1:9000/bkt/a%20b.tar");
  EXPECT_EQ(RequestUrl(object, "", "eu-west-1", Addressing::kVirtualHosted),
            "https://bkt.s3.eu-west-1.amazonaws.com/a%20b.tar");
  EXPECT_EQ(RequestUrl(object, "https://minio.local", "us-east-1", Addressing::kVirtualHosted),
            "https://bkt.minio.local/a%20b.tar");
  // A dotted bucket is no host name TLS certificates cover.
  EXPECT_EQ(RequestUrl(ParseObjectUrl("s3://my.bkt/k").value(), "", "us-east-1",
                       Addressing::kVirtualHosted),
            "https://s3.us-east-1.amazonaws.com/my.bkt/k");
  EXPECT_EQ(RequestUrl(ParseObjectUrl("http://h:1/p q").value(), "ignored", "r", Addressing::kPath),
            "http://h:1/p%20q");
}

}  // namespace
}  // namespace segfeed::remote
