"""Where cities are and how far apart, for the approximate network round-trip time (pure).

When a data centre states no measured latency to a city, the round-trip time is estimated from
the great-circle distance between the two cities:

    rtt_ms = 2 × distance_km × ROUTE_FACTOR × FIBRE_US_PER_KM / 1000 + OVERHEAD_MS

* ``FIBRE_US_PER_KM = 5``: one-way propagation delay of light in single-mode fibre, ≈ 4.9 µs/km
  (group index ≈ 1.468), 5 µs/km with metro cross-connects. Source: "The 5-microsecond rule:
  fiber propagation latency per kilometer",
  https://mapyourtech.com/the-5-microsecond-rule-fiber-propagation-latency-per-kilometer/
  (4.897 µs/km at 1550 nm), and Wikipedia, "Latency (engineering)", section *Fiber optics*
  ("about 5.0 µs of latency for every kilometer").
* ``ROUTE_FACTOR = 1.5`` (*policy*, ours): fibre follows roads and railways and goes through
  carrier hubs, so the path is longer than the great circle.
* ``OVERHEAD_MS = 2`` (*policy*, ours): switching, routing and the last mile, both ways.

City coordinates (latitude, longitude in degrees): each province's capital (the cities of
:data:`comparator.domain.provinces.PROVINCES`), the cities of ``CITY_CODES`` and a few data-centre
towns, copied from pyecharts' ``pyecharts/datasets/city_coordinates.json`` (commit
5228492426e7f7bd6d701af8ae1b130d5c14145c, stored there as [longitude, latitude]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from comparator.domain.provinces import canonical_city, canonical_province

FIBRE_US_PER_KM = Decimal(5)
ROUTE_FACTOR = Decimal("1.5")
OVERHEAD_MS = Decimal(2)
EARTH_RADIUS_KM = 6371.0  # mean radius (IUGG)

CITY_COORDINATES: dict[str, tuple[float, float]] = {
    "北京": (39.90403, 116.407526),  # 北京
    "天津": (39.084158, 117.200983),  # 天津
    "石家庄": (38.03, 114.48),  # 河北
    "太原": (37.87, 112.53),  # 山西
    "呼和浩特": (40.82, 111.65),  # 内蒙古
    "沈阳": (41.8, 123.38),  # 辽宁
    "长春": (43.88, 125.35),  # 吉林
    "哈尔滨": (45.75, 126.63),  # 黑龙江
    "上海": (31.230416, 121.473701),  # 上海
    "南京": (32.04, 118.78),  # 江苏
    "杭州": (30.26, 120.19),  # 浙江
    "合肥": (31.86, 117.27),  # 安徽
    "福州": (26.08, 119.3),  # 福建
    "南昌": (28.68, 115.89),  # 江西
    "济南": (36.65, 117),  # 山东
    "郑州": (34.76, 113.65),  # 河南
    "武汉": (30.52, 114.31),  # 湖北
    "长沙": (28.21, 113),  # 湖南
    "广州": (23.16, 113.23),  # 广东
    "南宁": (22.84, 108.33),  # 广西
    "海口": (20.02, 110.35),  # 海南
    "重庆": (29.563009, 106.551556),  # 重庆
    "成都": (30.67, 104.06),  # 四川
    "贵阳": (26.57, 106.71),  # 贵州
    "昆明": (25.04, 102.73),  # 云南
    "拉萨": (29.97, 91.11),  # 西藏
    "西安": (34.27, 108.95),  # 陕西
    "兰州": (36.03, 103.73),  # 甘肃
    "西宁": (36.56, 101.74),  # 青海
    "银川": (38.47, 106.27),  # 宁夏
    "乌鲁木齐": (43.77, 87.68),  # 新疆
    "深圳": (22.62, 114.07),
    "佛山": (23.05, 113.11),
    "东莞": (23.04, 113.75),
    "苏州": (31.32, 120.62),
    "常州": (31.79, 119.95),
    "张家口": (40.82, 114.87),
    "廊坊": (39.53, 116.7),
    "乌兰察布": (41.02, 113.06),  # the file's 集宁, its seat
}
PROVINCE_CAPITALS: dict[str, str] = {
    "北京": "北京",
    "天津": "天津",
    "河北": "石家庄",
    "山西": "太原",
    "内蒙古": "呼和浩特",
    "辽宁": "沈阳",
    "吉林": "长春",
    "黑龙江": "哈尔滨",
    "上海": "上海",
    "江苏": "南京",
    "浙江": "杭州",
    "安徽": "合肥",
    "福建": "福州",
    "江西": "南昌",
    "山东": "济南",
    "河南": "郑州",
    "湖北": "武汉",
    "湖南": "长沙",
    "广东": "广州",
    "广西": "南宁",
    "海南": "海口",
    "重庆": "重庆",
    "四川": "成都",
    "贵州": "贵阳",
    "云南": "昆明",
    "西藏": "拉萨",
    "陕西": "西安",
    "甘肃": "兰州",
    "青海": "西宁",
    "宁夏": "银川",
    "新疆": "乌鲁木齐",
}


@dataclass(frozen=True)
class Place:
    """A point on the map and what it stands for (``city``, or the province's capital)."""

    name: str
    latitude: float
    longitude: float
    by_capital: bool = False  # the data centre's city is unknown: its province's capital


def known_city(text: str) -> str | None:
    """The canonical name of a city the table knows (a province name means its capital)."""
    city = canonical_city(text)
    if city in CITY_COORDINATES:
        return city
    province = canonical_province(text)
    return PROVINCE_CAPITALS.get(province) if province else None


def place_of(province: str | None, city: str | None) -> Place | None:
    """Where a data centre is: its city when known, else its province's capital."""
    if city and (name := known_city(city)) is not None:
        return Place(name, *CITY_COORDINATES[name])
    capital = PROVINCE_CAPITALS.get(province or "")
    if capital is None:
        return None
    return Place(capital, *CITY_COORDINATES[capital], by_capital=True)


def great_circle_km(a: Place, b: Place) -> float:
    """The haversine distance between two places on a sphere of the Earth's mean radius."""
    lat1, lat2 = math.radians(a.latitude), math.radians(b.latitude)
    dlat = lat2 - lat1
    dlon = math.radians(b.longitude - a.longitude)
    h = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


def approximate_rtt_ms(distance_km: float) -> Decimal:
    """The estimated round-trip time over ``distance_km`` of great circle, to 0.1 ms."""
    path_km = Decimal(str(round(distance_km, 1))) * ROUTE_FACTOR
    rtt = 2 * path_km * FIBRE_US_PER_KM / 1000 + OVERHEAD_MS
    return rtt.quantize(Decimal("0.1"))
