// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim link: the port's link modes and the negotiation between the
 * two ends of the cable (Documentation/sim.rst, Link).
 *
 * A port supports the modes of a ConnectX-3 Pro 40/56GbE port on a
 * direct-attach cable (the CR and KR modes of mlx4_en's ptys2ethtool map
 * in en_ethtool.c) up to its debugfs speed, the module's fastest, and
 * keeps what a PTYS register keeps: the advertised modes, autonegotiation
 * on or off and the forced speed. The link between two enabled, cabled
 * ports is:
 *   both negotiating: the fastest mode both advertise (IEEE 802.3 clause
 *     73 priority resolution: a common technology, not just a speed);
 *     none: no link;
 *   both forced: the forced speed if they force the same one, else none;
 *   one forced: the negotiating end detects the other's signal (parallel
 *     detection, clause 73.7.4.1 and 28.2.3.1) and links at its speed if
 *     it advertises a mode of that speed, else none.
 * A one-port adapter links by itself at the fastest speed it advertises
 * or its forced speed. A settings change takes both ends' link down; it
 * comes back CXB_SIM_AN_MS later if they agree.
 *
 * Context: process context, under the adapter's lock (link_up and the
 * datapath read port->link without it).
 */
#include <linux/ethtool.h>
#include <linux/linkmode.h>

#include "cxbell_sim.h"

/* How long the link stays down while the ends renegotiate, ms (a clause
 * 73 negotiation with link training takes a few hundred).
 */
#define CXB_SIM_AN_MS	200

/* The modes a port can run: bit i of cxb_sim_port.cap/adv is entry i */
static const struct {
	u32 speed;
	u8 mode;
} cxb_sim_modes[] = {
	{ SPEED_1000, ETHTOOL_LINK_MODE_1000baseKX_Full_BIT },
	{ SPEED_10000, ETHTOOL_LINK_MODE_10000baseKR_Full_BIT },
	{ SPEED_10000, ETHTOOL_LINK_MODE_10000baseCR_Full_BIT },
	{ SPEED_40000, ETHTOOL_LINK_MODE_40000baseKR4_Full_BIT },
	{ SPEED_40000, ETHTOOL_LINK_MODE_40000baseCR4_Full_BIT },
	{ SPEED_56000, ETHTOOL_LINK_MODE_56000baseKR4_Full_BIT },
	{ SPEED_56000, ETHTOOL_LINK_MODE_56000baseCR4_Full_BIT },
};

/* The modes among @modes that run at @speed */
static u32 cxb_sim_modes_at(u32 modes, u32 speed)
{
	u32 m = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxb_sim_modes); i++)
		if ((modes & BIT(i)) && cxb_sim_modes[i].speed == speed)
			m |= BIT(i);
	return m;
}

/* The fastest speed of @modes, 0: none */
static u32 cxb_sim_top_speed(u32 modes)
{
	u32 top = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxb_sim_modes); i++)
		if ((modes & BIT(i)) && cxb_sim_modes[i].speed > top)
			top = cxb_sim_modes[i].speed;
	return top;
}

static void cxb_sim_modes_to_linkmode(u32 modes, unsigned long *lm)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxb_sim_modes); i++)
		if (modes & BIT(i))
			__set_bit(cxb_sim_modes[i].mode, lm);
}

static u32 cxb_sim_linkmode_to_modes(const unsigned long *lm)
{
	u32 modes = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxb_sim_modes); i++)
		if (test_bit(cxb_sim_modes[i].mode, lm))
			modes |= BIT(i);
	return modes;
}

/* Whether @speed is the fastest speed of a port's module */
bool cxb_sim_speed_valid(u32 speed)
{
	return speed && cxb_sim_modes_at(~0U, speed);
}

/* Defaults, as after a reset: every mode up to @speed supported and
 * advertised, autonegotiation on.
 */
static void cxb_sim_port_link_reset(struct cxb_sim_port *port, u32 speed)
{
	unsigned int i;

	WRITE_ONCE(port->speed, speed);
	port->cap = 0;
	for (i = 0; i < ARRAY_SIZE(cxb_sim_modes); i++)
		if (cxb_sim_modes[i].speed <= speed)
			port->cap |= BIT(i);
	port->adv = port->cap;
	port->an = true;
	port->force_speed = 0;
}

void cxb_sim_port_link_init(struct cxb_sim_port *port)
{
	cxb_sim_port_link_reset(port, CXB_SIM_DEF_SPEED);
}

/* The speed @port and @peer agree on, 0: none (see the top of the file) */
static u32 cxb_sim_resolve(const struct cxb_sim_port *port,
			   const struct cxb_sim_port *peer)
{
	if (!peer)
		return port->an ? cxb_sim_top_speed(port->adv) :
				  port->force_speed;
	if (port->an && peer->an)
		return cxb_sim_top_speed(port->adv & peer->adv);
	if (!port->an && !peer->an)
		return port->force_speed == peer->force_speed ?
		       port->force_speed : 0;
	if (port->an)
		swap(port, peer);
	/* @port forced, @peer negotiating: parallel detection */
	return cxb_sim_modes_at(peer->adv, port->force_speed) ?
	       port->force_speed : 0;
}

/* Link: both ports of the cable enabled (one-port adapter: enabled), no
 * renegotiation in progress and the two ends agreeing on a speed.
 */
void cxb_sim_link_update(struct cxb_sim_adapter *ad)
{
	struct cxb_sim_port *port, *peer;
	unsigned int i;
	u32 speed;
	bool up;

	lockdep_assert_held(&ad->lock);
	for (i = 0; i < ad->nports; i++) {
		port = ad->ports[i];
		if (!port)
			continue;
		peer = cxb_sim_peer(port);
		up = port->enabled && !ad->an_pending &&
		     (ad->nports == 1 || (peer && peer->enabled && ad->cable));
		speed = up ? cxb_sim_resolve(port, peer) : 0;
		up = speed;
		port->link_speed = speed;
		port->lp_adv = up && peer && peer->an && port->an ?
			       peer->adv : 0;
		if (up == port->link)
			continue;
		WRITE_ONCE(port->link, up);
		if (port->link_cb)
			port->link_cb(port->link_ctx);
	}
}

/* Take the link down on both ends; it comes back after CXB_SIM_AN_MS */
static void cxb_sim_renegotiate(struct cxb_sim_adapter *ad)
{
	lockdep_assert_held(&ad->lock);
	ad->an_pending = true;
	cxb_sim_link_update(ad);
	mod_delayed_work(system_wq, &ad->an_work,
			 msecs_to_jiffies(CXB_SIM_AN_MS));
}

void cxb_sim_an_work(struct work_struct *work)
{
	struct cxb_sim_adapter *ad = container_of(to_delayed_work(work),
						  struct cxb_sim_adapter,
						  an_work);

	mutex_lock(&ad->lock);
	ad->an_pending = false;
	cxb_sim_link_update(ad);
	mutex_unlock(&ad->lock);
}

/* Plug the cable in or pull it out (debugfs cable). */
void cxb_sim_set_cable(struct cxb_sim_adapter *ad, bool in)
{
	unsigned int i;

	mutex_lock(&ad->lock);
	WRITE_ONCE(ad->cable, in);
	cxb_sim_link_update(ad);
	mutex_unlock(&ad->lock);
	/* paused engines discard what they hold */
	for (i = 0; !in && i < ad->nports; i++)
		if (ad->ports[i])
			cxb_sim_port_resume(ad->ports[i]);
}

/* A module whose fastest speed is @speed (debugfs speed): the port's
 * link settings go back to their defaults and the link renegotiates.
 */
int cxb_sim_port_set_speed(struct cxb_sim_port *port, u32 speed)
{
	struct cxb_sim_adapter *ad = port->ad;

	if (!cxb_sim_speed_valid(speed))
		return -EINVAL;
	mutex_lock(&ad->lock);
	cxb_sim_port_link_reset(port, speed);
	cxb_sim_renegotiate(ad);
	mutex_unlock(&ad->lock);
	return 0;
}

/* The link as a direct-attach cable's, the modes as a PTYS register's */
void cxb_sim_get_link_info(struct cxb_adev *cadev, struct cxb_link_info *li)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);

	mutex_lock(&port->ad->lock);
	li->speed = port->link ? port->link_speed : SPEED_UNKNOWN;
	li->port = PORT_DA;
	li->modes = true;
	li->autoneg = port->an ? AUTONEG_ENABLE : AUTONEG_DISABLE;
	li->lp_autoneg = port->lp_adv != 0;
	linkmode_zero(li->supported);
	linkmode_zero(li->advertising);
	linkmode_zero(li->lp_advertising);
	cxb_sim_modes_to_linkmode(port->cap, li->supported);
	cxb_sim_modes_to_linkmode(port->adv, li->advertising);
	cxb_sim_modes_to_linkmode(port->lp_adv, li->lp_advertising);
	mutex_unlock(&port->ad->lock);
}

int cxb_sim_set_link(struct cxb_adev *cadev, const struct cxb_link_cfg *cfg)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	struct cxb_sim_adapter *ad = port->ad;
	bool an = cfg->autoneg == AUTONEG_ENABLE;
	u32 adv = cxb_sim_linkmode_to_modes(cfg->advertising) & port->cap;
	int err = 0;

	mutex_lock(&ad->lock);
	if (!adv || (!an && !cxb_sim_modes_at(port->cap, cfg->speed))) {
		err = -EINVAL;
		goto out;
	}
	if (an == port->an && adv == port->adv &&
	    (an || cfg->speed == port->force_speed))
		goto out;
	port->an = an;
	port->adv = adv;
	port->force_speed = an ? 0 : cfg->speed;
	cxb_sim_renegotiate(ad);
out:
	mutex_unlock(&ad->lock);
	return err;
}
