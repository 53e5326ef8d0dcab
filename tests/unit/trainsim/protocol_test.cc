// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include "protocol.h"

namespace
{

using mltcp::trainsim::check_hello;
using mltcp::trainsim::Collective;
using mltcp::trainsim::Config;
using mltcp::trainsim::make_hello;

Config worker(unsigned rank)
{
	Config c;
	c.job = "bert";
	c.rank = rank;
	c.world = 3;
	c.collective = Collective::ring;
	c.bytes = 1000;
	c.iterations = 5;
	return c;
}

std::string line_of(const Config &c)
{
	std::string hello = make_hello(c);
	EXPECT_EQ(hello.back(), '\n');
	return hello.substr(0, hello.size() - 1);
}

TEST(TrainsimProtocol, HelloOfTheNextRankIsAccepted)
{
	EXPECT_EQ(line_of(worker(1)),
		  "HELLO mltcp-trainsim/1 job=bert rank=1 world=3 collective=ring bytes=1000 "
		  "stop=iterations:5 pattern=burst sockets=1 buckets=-");
	EXPECT_FALSE(check_hello(worker(0), line_of(worker(1))));
	EXPECT_FALSE(check_hello(worker(2), line_of(worker(0)))); // the ring wraps
}

TEST(TrainsimProtocol, MismatchesAreNamed)
{
	EXPECT_EQ(*check_hello(worker(0), line_of(worker(2))), "it has rank=2, expected rank=1");
	Config other = worker(1);
	other.job = "gpt";
	EXPECT_EQ(*check_hello(worker(0), line_of(other)), "it has job=gpt, expected job=bert");
	other = worker(1);
	other.bytes = 2000;
	EXPECT_EQ(*check_hello(worker(0), line_of(other)),
		  "it has bytes=2000, expected bytes=1000");
	other = worker(1);
	other.iterations.reset();
	other.duration_us = 1000000;
	EXPECT_EQ(*check_hello(worker(0), line_of(other)),
		  "it has stop=duration, expected stop=iterations:5");
	EXPECT_NE(check_hello(worker(0), "SSH-2.0-OpenSSH")->find("not an mltcp-trainsim worker"),
		  std::string::npos);
}

TEST(TrainsimProtocol, Stop)
{
	EXPECT_EQ(mltcp::trainsim::make_stop(41), "STOP 41\n");
	EXPECT_EQ(mltcp::trainsim::parse_stop("STOP 41"), 41u);
	EXPECT_FALSE(mltcp::trainsim::parse_stop("STOP "));
	EXPECT_FALSE(mltcp::trainsim::parse_stop("STOP x"));
	EXPECT_FALSE(mltcp::trainsim::parse_stop("SYNC1"));
}

} // namespace
